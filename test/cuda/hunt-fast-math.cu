// A kernel in the fast-math style (-ffast-math, clang's counterpart of
// nvcc's -use_fast_math): __expf, __logf, __sinf, __fdividef and fmaf
// written out, and expf and logf that -ffast-math turns into the fast
// intrinsics, in a softplus-and-Gaussian per-element loss; launched by a
// host function differentiated as a whole, reverse and forward mode, and in
// a device-side request. Against analytic derivatives at the tolerance of
// the approximate instructions.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -ffast-math -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -ffast-math -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: not grep -E "kwhy.*fast_loss" %t.O0.ptx %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -ffast-math -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -ffast-math -O2 %s -o %t.exe
//
// The derivative stays fast: approximate instructions, no IEEE division
// subroutine or precise exp.
// CHECK-LABEL: .entry __kinase_krev_{{[a-z]+}}__Z9fast_lossPfPKfi(
// CHECK: ex2.approx
// CHECK-NOT: __internal_
// CHECK: ret;

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

enum { N = 4096, THREADS = 128 };

__device__ float element(float x) {
  float softplus = __logf(1.0f + __expf(x));
  float gauss = expf(-0.5f * x * x);
  float wave = __sinf(x) * __fdividef(1.0f, 1.0f + x * x);
  return fmaf(0.5f, softplus, gauss) + wave + logf(2.0f + x * x);
}

__global__ void fast_loss(float *out, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = element(x[i]);
}

void losses(float *out, const float *x, int n) { fast_loss<<<(n + THREADS - 1) / THREADS, THREADS>>>(out, x, n); }

__device__ float element_at(const float *x) { return element(*x); }

__global__ void device_gradients(const float *x, float *dx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    __enzyme_autodiff((void *)element_at, enzyme_dup, x + i, dx + i);
}

static double want(double x) {
  double e = exp(x), q = 1 + x * x;
  return 0.5 * e / (1 + e) - x * exp(-0.5 * x * x) + cos(x) / q - sin(x) * 2 * x / (q * q) + 2 * x / (2 + x * x);
}

int main(void) {
  require_device();
  static float x[N], ones[N], grad[N], tangent[N], dev_grad[N];
  for (int i = 0; i < N; i++) {
    x[i] = (float)(-3 + 6.0 * i / N);
    ones[i] = 1;
  }
  float *d_x = to_device(x), *d_out = device_alloc<float>(N), *d_dout = to_device(ones);
  float *d_dx = device_alloc<float>(N), *d_ones = to_device(ones), *d_t = device_alloc<float>(N);
  float *d_dev = device_alloc<float>(N);
  check_cuda(cudaMemset(d_dx, 0, sizeof grad), "cudaMemset");
  check_cuda(cudaMemset(d_dev, 0, sizeof grad), "cudaMemset");
  __enzyme_autodiff((void *)losses, enzyme_dupnoneed, d_out, d_dout, enzyme_dup, d_x, d_dx, N);
  check_kernel("reverse");
  __enzyme_fwddiff((void *)losses, enzyme_dup, d_out, d_t, enzyme_dup, d_x, d_ones, N);
  check_kernel("forward");
  device_gradients<<<(N + THREADS - 1) / THREADS, THREADS>>>(d_x, d_dev, N);
  check_kernel("device_gradients");
  from_device(grad, d_dx);
  from_device(tangent, d_t);
  from_device(dev_grad, d_dev);
  device_free_all();
  for (int i = 0; i < N; i++) {
    double w = want(x[i]);
    check_within(grad[i], w, 2e-3, "reverse at x = %g", x[i]);
    check_within(tangent[i], w, 2e-3, "forward at x = %g", x[i]);
    check_within(dev_grad[i], w, 2e-3, "device-side at x = %g", x[i]);
  }
  return check_exit();
}
