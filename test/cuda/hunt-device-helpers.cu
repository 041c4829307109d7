// A kernel whose threads differentiate, in both modes, a __device__ function
// built from helpers with loops and branches: a polynomial by Horner's rule
// (a loop over coefficients), a piecewise smooth clamp (branches), and a
// loop that stops early on a data-dependent test. Per thread, the gradient
// and the tangent come from __enzyme_autodiff and __enzyme_fwddiff inside
// the kernel; checked against central differences of the same function on
// the host, in double.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
// RUN: FileCheck %s --input-file=%t.ptx
//
// The loop that may stop early keeps its tape on the device heap, freed by
// the thread that made it:
// CHECK-LABEL: .entry _Z5derivPKdPdS1_i(
// CHECK: call.uni (retval0), malloc,
// CHECK: call.uni free,
// CHECK: ret;

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

enum { N = 777, K = 3, DEGREE = 6 };

__host__ __device__ double horner(double t) {
  const double c[DEGREE + 1] = {0.5, -1.0, 0.25, 0.125, -0.05, 0.01, 0.002};
  double acc = c[DEGREE];
  for (int k = DEGREE - 1; k >= 0; k--)
    acc = acc * t + c[k];
  return acc;
}

__host__ __device__ double soft_clamp(double t) {
  if (t < -1)
    return -1 + 0.1 * (t + 1);
  if (t > 1)
    return 1 + 0.1 * (t - 1);
  return t * (1.5 - 0.5 * t * t) * 0.9 + 0.1 * t;
}

__host__ __device__ double model(const double *p) {
  double s = 0;
  for (int k = 0; k < K; k++) {
    double h = horner(p[k]);
    if (fabs(h) > 50)
      break;
    s += soft_clamp(h) * (k + 1);
  }
  return s + p[0] * p[K - 1];
}

extern __device__ double __enzyme_fwddiff_d(void *, ...);

__global__ void deriv(const double *p, double *grad, double *tan, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  __enzyme_autodiff((void *)model, enzyme_dup, p + K * i, grad + K * i);
  double e[K] = {1, 1, 1};
  tan[i] = __enzyme_fwddiff_d((void *)model, enzyme_dup, p + K * i, e);
}

int main(void) {
  require_device();
  static double p[K * N], grad[K * N], tan[N];
  for (int j = 0; j < K * N; j++)
    p[j] = 2.2 * sin(0.77 * j + 0.1);
  double *d_p = to_device(p), *d_g = device_alloc<double>(K * N), *d_t = device_alloc<double>(N);
  check_cuda(cudaMemset(d_g, 0, sizeof grad), "cudaMemset");
  deriv<<<blocks_for(N, 64), 64>>>(d_p, d_g, d_t, N);
  check_kernel("deriv");
  from_device(grad, d_g);
  from_device(tan, d_t);
  device_free_all();
  for (int i = 0; i < N; i++) {
    double q[K], along = 0;
    for (int k = 0; k < K; k++)
      q[k] = p[K * i + k];
    for (int k = 0; k < K; k++) {
      const double h = 1e-6;
      q[k] += h;
      double up = model(q);
      q[k] -= 2 * h;
      double down = model(q);
      q[k] += h;
      double d = (up - down) / (2 * h);
      along += d;
      check_within(grad[K * i + k], d, 1e-5, "d/dp[%d][%d]", i, k);
    }
    check_within(tan[i], along, 3e-5, "tangent[%d]", i);
  }
  return check_exit();
}
