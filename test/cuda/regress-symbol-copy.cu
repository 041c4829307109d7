// Regression: cudaMemcpyToSymbol inside a differentiated host function (it
// had no rule): coefficients copied into __constant__ memory, then a kernel
// reading them. The coefficients are Const; the host's handle of a device
// variable gets no shadow (its memory is the device's), and the gradient
// with respect to x is 2 c0 x dy. Forward mode along t: 2 c0 x t.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK-DAG: call {{.*}}ptr @__kinase_launch_augment(
// CHECK-DAG: call {{.*}}i32 @cudaMemcpyToSymbol(
// CHECK-NOT: __kinase_shadow_coef
// CHECK-NOT: __enzyme_autodiff

#include <kinase.h>
#include <vector>
#include "cuda_check.h"

enum { N = 4096 };

__constant__ float coef[2];

__global__ void quadratic(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = coef[0] * x[i] * x[i] + coef[1];
}

void evaluate(float *y, const float *x, int n, const float *c) {
  cudaMemcpyToSymbol(coef, c, 2 * sizeof(float));
  quadratic<<<(n + 255) / 256, 256>>>(y, x, n);
}

int main(void) {
  require_device();
  std::vector<float> x(N), seed(N), t(N), dx(N), dir(N);
  const float c[2] = {0.75f, -2.0f};
  for (int i = 0; i < N; i++) {
    x[i] = 0.01f * (i % 200) - 1.0f;
    seed[i] = 1.0f + 0.5f * (i % 3);
    t[i] = 0.2f * (i % 5) - 0.4f;
  }
  float *d_x = device_alloc<float>(N), *d_dx = device_alloc<float>(N), *d_y = device_alloc<float>(N);
  float *d_dy = device_alloc<float>(N), *d_t = device_alloc<float>(N), *d_dir = device_alloc<float>(N);
  check_cuda(cudaMemcpy(d_x, x.data(), N * sizeof(float), cudaMemcpyHostToDevice), "copy");
  check_cuda(cudaMemcpy(d_dy, seed.data(), N * sizeof(float), cudaMemcpyHostToDevice), "copy");
  check_cuda(cudaMemcpy(d_t, t.data(), N * sizeof(float), cudaMemcpyHostToDevice), "copy");
  check_cuda(cudaMemset(d_dx, 0, N * sizeof(float)), "memset");
  __enzyme_autodiff((void *)evaluate, enzyme_dupnoneed, d_y, d_dy, enzyme_dup, d_x, d_dx,
                    enzyme_const, N, enzyme_const, c);
  check_kernel("gradient of evaluate");
  __enzyme_fwddiff((void *)evaluate, enzyme_dup, d_y, d_dir, enzyme_dup, d_x, d_t, enzyme_const, N,
                   enzyme_const, c);
  check_kernel("tangent of evaluate");
  check_cuda(cudaMemcpy(dx.data(), d_dx, N * sizeof(float), cudaMemcpyDeviceToHost), "copy");
  check_cuda(cudaMemcpy(dir.data(), d_dir, N * sizeof(float), cudaMemcpyDeviceToHost), "copy");
  for (int i = 0; i < N; i++) {
    check_close(dx[i], 2.0 * c[0] * x[i] * seed[i], 1e-5, "d/dx[%d]", i);
    check_close(dir[i], 2.0 * c[0] * x[i] * t[i], 1e-5, "tangent[%d]", i);
  }
  device_free_all();
  return check_exit();
}
