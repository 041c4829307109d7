// Forward mode (__enzyme_fwddiff) of a host function with host memory in,
// two kernels (the second accumulating with atomicAdd into a memset
// scalar) and the scalar copied back: f = sum exp(s x_i) w_i. Tangents
// along x (w Const) and along the by-value float s.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// Forward mode launches the forward kernels in place of the kernels.
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_fwddiff
// CHECK-DAG: call void @__kinase_launch_tangent(ptr {{.*}}exp_scale
// CHECK-DAG: call void @__kinase_launch_tangent(ptr {{.*}}dot_into
// CHECK-NOT: __kinase_launch_augment(

#include <kinase.h>
#include <vector>
#include "cuda_check.h"

__global__ void exp_scale(float *y, const float *x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = expf(s * x[i]);
}
__global__ void dot_into(float *out, const float *a, const float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(out, a[i] * b[i]);
}

// f(x, s) = sum_i exp(s x_i) w_i, with host memory in and out.
float weighted(const float *host_x, const float *host_w, float s, int n) {
  float *d_x, *d_w, *d_y, *d_out;
  size_t bytes = n * sizeof(float);
  cudaMalloc(&d_x, bytes);
  cudaMalloc(&d_w, bytes);
  cudaMalloc(&d_y, bytes);
  cudaMalloc(&d_out, sizeof(float));
  cudaMemcpy(d_x, host_x, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(d_w, host_w, bytes, cudaMemcpyHostToDevice);
  cudaMemset(d_out, 0, sizeof(float));
  exp_scale<<<(n + 255) / 256, 256>>>(d_y, d_x, s, n);
  dot_into<<<(n + 255) / 256, 256>>>(d_out, d_y, d_w, n);
  float out;
  cudaMemcpy(&out, d_out, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d_x);
  cudaFree(d_w);
  cudaFree(d_y);
  cudaFree(d_out);
  return out;
}

int main() {
  require_device();
  const int n = 2500;
  const float s = 0.7f;
  std::vector<float> x(n), w(n), tx(n), zero(n, 0.0f);
  for (int i = 0; i < n; i++) {
    x[i] = 0.001f * (i % 333) - 0.1f;
    w[i] = 1.0f / (1 + i % 9);
    tx[i] = 0.5f - 0.001f * (i % 7);
  }
  // Along (tx, ts = 0): sum_i s exp(s x_i) w_i tx_i
  double t1 = __enzyme_fwddiff((void *)weighted, enzyme_dup, x.data(), tx.data(), enzyme_const,
                               w.data(), enzyme_dup, s, 0.0f, enzyme_const, n);
  check_kernel("tangent along x");
  // Along (0, ts = 1): sum_i x_i exp(s x_i) w_i
  double t2 = __enzyme_fwddiff((void *)weighted, enzyme_dup, x.data(), zero.data(), enzyme_const,
                               w.data(), enzyme_dup, s, 1.0f, enzyme_const, n);
  check_kernel("tangent along s");
  double want1 = 0, want2 = 0;
  for (int i = 0; i < n; i++) {
    double e = exp((double)s * x[i]);
    want1 += s * e * w[i] * tx[i];
    want2 += x[i] * e * w[i];
  }
  check_close(t1, want1, 1e-4, "tangent along x");
  check_close(t2, want2, 1e-4, "tangent along s");
  return check_exit();
}
