// Forward mode inside a kernel of __device__ functions that loop over a
// constant array: the coefficients come in through an enzyme_const pointer
// (global memory, then a copy in __shared__ memory), the loop count is an
// integer (marked const, and unmarked), and x is the one active scalar.
// A third function reads a __constant__ array directly, without any pointer
// argument.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: FileCheck %s --input-file=%t.O0.ptx
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK-NOT: __enzyme_fwddiff
// CHECK: .entry _Z8tangentsPKdiS0_Pdi
// CHECK-NOT: __enzyme_fwddiff

#include <math.h>
#include "cuda_check.h"

__device__ int enzyme_dup;
__device__ int enzyme_const;
extern __device__ double __enzyme_fwddiff(void *, ...);

enum { NC = 9, NF = 5 };

__constant__ double kcoef[NC];

// Horner: p(x) = c[0] + c[1] x + ... + c[n-1] x^(n-1)
__host__ __device__ double horner(const double *c, int n, double x) {
  double r = 0.0;
  for (int k = n - 1; k >= 0; k--)
    r = r * x + c[k];
  return r;
}

// g(x) = sum_k c[k] exp(-(k+1) x^2) sin(k x)
__host__ __device__ double gauss_sum(const double *c, int n, double x) {
  double s = 0.0;
  for (int k = 0; k < n; k++)
    s += c[k] * exp(-(k + 1) * x * x) * sin(k * x);
  return s;
}

// The same polynomial, the coefficients read from __constant__ memory.
__device__ double horner_constant(double x) {
  double r = 0.0;
  for (int k = NC - 1; k >= 0; k--)
    r = r * x + kcoef[k];
  return r;
}

__global__ void tangents(const double *c, int n, const double *x, double *out, int m) {
  __shared__ double sc[NC];
  if (threadIdx.x < NC)
    sc[threadIdx.x] = c[threadIdx.x];
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m)
    return;
  double xi = x[i];
  double *o = out + (size_t)i * NF;
  o[0] = __enzyme_fwddiff((void *)horner, enzyme_const, c, enzyme_const, n, enzyme_dup, xi, 1.0);
  o[1] = __enzyme_fwddiff((void *)horner, enzyme_const, sc, n, enzyme_dup, xi, 1.0);
  o[2] = __enzyme_fwddiff((void *)gauss_sum, enzyme_const, c, enzyme_const, n, enzyme_dup, xi, 1.0);
  o[3] = __enzyme_fwddiff((void *)gauss_sum, enzyme_const, sc, enzyme_const, n, enzyme_dup, xi, -0.5);
  o[4] = __enzyme_fwddiff((void *)horner_constant, enzyme_dup, xi, 1.0);
}

static double dhorner(const double *c, int n, double x) {
  double d = 0.0;
  for (int k = n - 1; k >= 1; k--)
    d = d * x + k * c[k];
  return d;
}

static double dgauss_sum(const double *c, int n, double x) {
  double d = 0.0;
  for (int k = 0; k < n; k++) {
    double e = exp(-(k + 1) * x * x);
    d += c[k] * e * (-2.0 * (k + 1) * x * sin(k * x) + k * cos(k * x));
  }
  return d;
}

int main(void) {
  enum { M = 1000 };
  static const double c[NC] = {0.5, -1.25, 0.75, 2.0, -0.3, 0.125, -0.0625, 0.01, 0.002};
  static double x[M], out[M * NF];
  for (int i = 0; i < M; i++)
    x[i] = -1.5 + 3.0 * i / (M - 1);

  for (int i = 0; i < M; i += 9) {
    double h = 1e-6;
    double fd0 = (horner(c, NC, x[i] + h) - horner(c, NC, x[i] - h)) / (2 * h);
    double fd2 = (gauss_sum(c, NC, x[i] + h) - gauss_sum(c, NC, x[i] - h)) / (2 * h);
    require_exact(dhorner(c, NC, x[i]), fd0, 1e-6, "horner' at x = %g", x[i]);
    require_exact(dgauss_sum(c, NC, x[i]), fd2, 1e-6, "gauss_sum' at x = %g", x[i]);
  }

  require_device();
  double *d_c = to_device(c), *d_x = to_device(x), *d_out = device_alloc(out);
  check_cuda(cudaMemcpyToSymbol(kcoef, c, sizeof c), "copy to __constant__");
  tangents<<<blocks_for(M, 128), 128>>>(d_c, NC, d_x, d_out, M);
  check_kernel("tangents");
  from_device(out, d_out);
  device_free_all();

  static const char *const names[NF] = {"horner (global)", "horner (shared, n unmarked)",
                                        "gauss_sum (global)", "gauss_sum (shared, dx = -0.5)",
                                        "horner (__constant__)"};
  for (int i = 0; i < M; i++) {
    double dh = dhorner(c, NC, x[i]), dg = dgauss_sum(c, NC, x[i]);
    double want[NF] = {dh, dh, dg, -0.5 * dg, dh};
    for (int k = 0; k < NF; k++)
      check_close(out[i * NF + k], want[k], 1e-12, "%s at x = %g", names[k], x[i]);
  }
  return check_exit();
}
