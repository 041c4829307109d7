// Regression: adjoints of vector values read by many threads were plain
// adds. A __half2 coefficient every thread reads (`w[0]`, a <2 x half> load)
// or an ext_vector_type(4) float one got its adjoint added into the shadow
// with a load, an add and a store, so threads overwrote each other's sums
// and the gradient came out as a fraction of the right one. Pairs of halves
// now take one atomic add (the native atom.add.noftz.f16x2), other vectors
// one atomic add per lane.
//   loss = sum_i (y_i.x + y_i.y) + sum_i (z_i.x + z_i.y + z_i.z + z_i.w),
//   y_i = w * v_i (half pairs), z_i = c * x_i (4 floats)
// d/dw = sum_i v_i, d/dc = sum_i x_i (per lane).
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK-NOT: __kinase_kwhy
// CHECK-LABEL: .entry __kinase_krev_{{[a-z]+}}__Z10pair_scale
// CHECK: atom.add.noftz.f16x2
// CHECK-LABEL: .entry __kinase_krev_{{[a-z]+}}__Z10quad_scale
// CHECK-COUNT-4: atom.global.add.f32

#include <kinase.h>
#include <cuda_fp16.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

typedef float float4v __attribute__((ext_vector_type(4)));

enum { N = 4096, PAIRS = 256, THREADS = 256 };

__global__ void pair_scale(__half2 *y, const __half2 *w, const __half2 *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = __hmul2(w[0], v[i]);
}

__global__ void quad_scale(float4v *z, const float4v *c, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    z[i] = c[0] * x[i];
}

float loss(const __half2 *w, const float4v *c, const __half2 *v, const float *x, int n) {
  __half2 *y;
  float4v *z;
  cudaMalloc(&y, PAIRS * sizeof(__half2));
  cudaMalloc(&z, n * sizeof(float4v));
  pair_scale<<<(PAIRS + THREADS - 1) / THREADS, THREADS>>>(y, w, v, PAIRS);
  quad_scale<<<(n + THREADS - 1) / THREADS, THREADS>>>(z, c, x, n);
  std::vector<float> hz(4 * n);
  std::vector<__half2> y2(PAIRS);
  cudaMemcpy(y2.data(), y, PAIRS * sizeof(__half2), cudaMemcpyDeviceToHost);
  cudaMemcpy(hz.data(), z, n * sizeof(float4v), cudaMemcpyDeviceToHost);
  float sum = 0;
  for (int i = 0; i < PAIRS; i++)
    sum += __low2float(y2[i]) + __high2float(y2[i]);
  for (int i = 0; i < 4 * n; i++)
    sum += hz[i];
  cudaFree(y);
  cudaFree(z);
  return sum;
}

int main() {
  require_device();
  std::vector<__half2> w(1), v(PAIRS);
  std::vector<float4v> c(1);
  std::vector<float> x(N);
  w[0] = __floats2half2_rn(0.5f, -0.25f);
  c[0] = float4v{1.0f, 2.0f, -1.0f, 0.5f};
  double sum_vlo = 0, sum_vhi = 0, sum_x = 0;
  // Multiples of 1/64 and 1/32 whose sums half holds exactly: lost adds
  // show, rounding does not.
  for (int i = 0; i < PAIRS; i++) {
    v[i] = __floats2half2_rn((i % 4) / 64.0f, (i % 3) / 32.0f);
    sum_vlo += __low2float(v[i]);
    sum_vhi += __high2float(v[i]);
  }
  for (int i = 0; i < N; i++) {
    x[i] = 0.01f * cosf(0.1f * i);
    sum_x += x[i];
  }
  __half2 *d_w = to_device(w), *d_dw = device_alloc<__half2>(1), *d_v = to_device(v);
  float4v *d_c = to_device(c), *d_dc = device_alloc<float4v>(1);
  float *d_x = to_device(x);
  check_cuda(cudaMemset(d_dw, 0, sizeof(__half2)), "memset");
  check_cuda(cudaMemset(d_dc, 0, sizeof(float4v)), "memset");
  __enzyme_autodiff((void *)loss, enzyme_dup, d_w, d_dw, enzyme_dup, d_c, d_dc, enzyme_const, d_v,
                    enzyme_const, d_x, enzyme_const, N);
  check_kernel("gradient of loss");
  std::vector<__half2> dw(1);
  std::vector<float4v> dc(1);
  from_device(dw, d_dw);
  from_device(dc, d_dc);
  check_close(__low2float(dw[0]), sum_vlo, 1e-6, "dloss/dw.x");
  check_close(__high2float(dw[0]), sum_vhi, 1e-6, "dloss/dw.y");
  for (int k = 0; k < 4; k++)
    check_close(dc[0][k], sum_x, 1e-4, "dloss/dc[%d]", k);
  device_free_all();
  return check_exit();
}
