// Copies between the host and __device__ / __constant__ variables in a
// differentiated host function: a variable that kernels only read has no
// shadow, so copying values that carry derivatives into one
// (cudaMemcpyToSymbol of enzyme_dup coefficients) is an error.
// test/cuda/regress-symbol-copy.cu copies Const coefficients, which works;
// test/cuda/host-device-symbol.cu reads back what kernels wrote;
// cuda-symbol-no-kernel.cu is the error where the file has no kernels.
// REQUIRES: cuda
// RUN: not %kinase-cc -g -O0 --cuda-host-only -S %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 --cuda-host-only -S %s -o /dev/null 2>&1 | FileCheck %s
// At the user's call (cuda_runtime.h's C++ overloads are inlined first).
// CHECK-DAG: cuda-symbol-copy.cu:24:3: error: kinase: cannot differentiate '{{.*}}active_coefficients{{.*}}': cudaMemcpyToSymbol copies values that carry derivatives into a __device__ or __constant__ variable, which has no shadow: pass them to the kernels as arguments
#include <kinase.h>

__constant__ float coef[2];

__global__ void scaled(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = coef[0] * x[i];
}

void active_coefficients(float *y, const float *x, int n, const float *c) {
  cudaMemcpyToSymbol(coef, c, 2 * sizeof(float));
  scaled<<<(n + 127) / 128, 128>>>(y, x, n);
}

void gradients(float *y, float *dy, const float *x, float *dx, int n, const float *c, float *dc) {
  __enzyme_autodiff((void *)active_coefficients, enzyme_dupnoneed, y, dy, enzyme_dup, x, dx,
                    enzyme_const, n, enzyme_dup, c, dc);
}
