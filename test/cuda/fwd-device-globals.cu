// Forward mode inside a kernel through a __device__ global that each thread
// writes (its own slot) in one __noinline__ function and reads in another:
// the global gets a shadow in device memory, written and read beside it.
// Also a callback chosen from a __device__ table of function pointers (the
// indirect call becomes direct calls of the table's functions).
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: FileCheck %s --check-prefixes=CHECK,O0 --input-file=%t.O0.ptx
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// At -O2 the derivatives of fill and drain are inlined and the shadow's
// store and load forwarded: the shadow global goes.
// O0: .global .align 8 .b8 __kinase_shadow_scratch[4096];
// CHECK: .entry _Z8tangentsPKdPdi

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

enum { N = 512 };

__device__ double scratch[N];

__device__ __noinline__ void fill(int i, double x) { scratch[i] = x * x; }
__device__ __noinline__ double drain(int i) { return sin(scratch[i]); }

// f(x) = sin(x^2) through the global, times a callback picked by i.
typedef double (*unary)(double);
__device__ double twice(double x) { return 2.0 * x; }
__device__ double cube(double x) { return x * x * x; }
__device__ unary table[2] = {twice, cube};

__device__ double f(double x, int i) {
  fill(i, x);
  return drain(i) * table[i % 2](x);
}

__global__ void tangents(const double *x, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = __enzyme_fwddiff((void *)f, enzyme_dup, x[i], 1.0, enzyme_const, i);
}

static double host_f(double x, int i) { return sin(x * x) * (i % 2 ? x * x * x : 2.0 * x); }
static double host_df(double x, int i) {
  double g = i % 2 ? x * x * x : 2.0 * x, dg = i % 2 ? 3.0 * x * x : 2.0;
  return 2.0 * x * cos(x * x) * g + sin(x * x) * dg;
}

int main(void) {
  static double x[N], out[N];
  for (int i = 0; i < N; i++)
    x[i] = -1.5 + 3.0 * i / (N - 1);
  for (int i = 0; i < N; i += 17) {
    double h = 1e-6;
    require_exact(host_df(x[i], i), (host_f(x[i] + h, i) - host_f(x[i] - h, i)) / (2 * h), 1e-6,
                  "d f / d x at %g (lane %d)", x[i], i);
  }
  require_device();
  double *d_x = to_device(x), *d_out = device_alloc(out);
  tangents<<<blocks_for(N, 128), 128>>>(d_x, d_out, N);
  check_kernel("tangents");
  from_device(out, d_out);
  device_free_all();
  for (int i = 0; i < N; i++)
    check_close(out[i], host_df(x[i], i), 1e-12, "d f / d x at %g (lane %d)", x[i], i);
  return check_exit();
}
