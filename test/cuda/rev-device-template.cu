// Reverse mode in a kernel written as Enzyme's CUDA documentation does: its
// own __device__ markers and a variadic template declaration of
// __enzyme_autodiff (C++ mangled), a void call whose outputs are dup
// pointers: the output's shadow seeds the gradient and reads as consumed
// afterwards. One thread per element.
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
// CHECK-NOT: __enzyme_autodiff
// CHECK: .entry _Z8foo_gradPdS_S_S_

#include <math.h>
#include "cuda_check.h"

__device__ int enzyme_dup;
__device__ int enzyme_const;
template <typename return_type, typename... T> __device__ return_type __enzyme_autodiff(void *, T...);

enum { N = 256 };

// y = x^2 + sin(x) y0, per element
__device__ void foo_impl(double *x_in, double *x_out) { x_out[0] = x_in[0] * x_in[0] + sin(x_in[0]) * x_out[0]; }

__global__ void foo_grad(double *x, double *d_x, double *y, double *d_y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N)
    __enzyme_autodiff<void>((void *)foo_impl, enzyme_dup, x + i, d_x + i, enzyme_dup, y + i, d_y + i);
}

int main(void) {
  static double x[N], dx[N], y[N], y0[N], dy[N];
  for (int i = 0; i < N; i++) {
    x[i] = -2.0 + 4.0 * i / (N - 1);
    y[i] = y0[i] = 0.5 + 0.01 * i;
    dy[i] = 1.0 + 0.001 * i; // seed
  }
  require_device();
  double *d_x = to_device(x), *d_dx = to_device(dx), *d_y = to_device(y), *d_dy = to_device(dy);
  foo_grad<<<blocks_for(N, 64), 64>>>(d_x, d_dx, d_y, d_dy);
  check_kernel("foo_grad");
  double seed[N];
  for (int i = 0; i < N; i++)
    seed[i] = dy[i];
  from_device(dx, d_dx);
  from_device(y, d_y);
  from_device(dy, d_dy);
  device_free_all();
  for (int i = 0; i < N; i++) {
    double v = x[i];
    check_close(y[i], v * v + sin(v) * y0[i], 1e-14, "primal y[%d]", i);
    check_close(dx[i], seed[i] * (2 * v + cos(v) * y0[i]), 1e-13, "d x[%d]", i);
    // y's old value is an input too: its shadow now holds its own adjoint.
    check_close(dy[i], seed[i] * sin(v), 1e-13, "d y[%d] (the old y)", i);
  }
  return check_exit();
}
