// Forward mode inside a kernel: each thread asks for the tangent of a
// __device__ function at its own point. The program declares the Enzyme
// markers and entry point itself, as Enzyme's CUDA users do.
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
// The request is gone from the PTX: the derivative replaced it.
// CHECK-NOT: __enzyme_fwddiff
// CHECK: .entry _Z8tangentsPKddPdi
// CHECK-NOT: __enzyme_fwddiff

#include <math.h>
#include "cuda_check.h"

__device__ int enzyme_dup;
__device__ int enzyme_const;
extern __device__ double __enzyme_fwddiff(void *, ...);

// f(x; c) = c x^2 sqrt(x) + x / (1 + x^2)
__device__ double f(double x, double c) {
  return c * x * x * sqrt(x) + x / (1.0 + x * x);
}

// d f / d x = 2.5 c x sqrt(x) + (1 - x^2) / (1 + x^2)^2
static double df_dx(double x, double c) {
  double q = 1.0 + x * x;
  return 2.5 * c * x * sqrt(x) + (1.0 - x * x) / (q * q);
}

__global__ void tangents(const double *x, double c, double *dx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dx[i] = __enzyme_fwddiff((void *)f, enzyme_dup, x[i], 1.0, enzyme_const, c);
}

int main(void) {
  enum { N = 1000 };
  const double c = 0.75;
  static double x[N], dx[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.05 + 0.01 * i;

  require_device();
  double *d_x = to_device(x), *d_dx = device_alloc(dx);
  tangents<<<blocks_for(N, 128), 128>>>(d_x, c, d_dx, N);
  check_kernel("tangents");
  from_device(dx, d_dx);
  device_free_all();

  for (int i = 0; i < N; i++)
    check_close(dx[i], df_dx(x[i], c), 1e-12, "d f / d x at x = %g", x[i]);
  return check_exit();
}
