// Reverse mode in device code through a loop whose every iteration must be
// recorded (x = 1.5 sin x + 0.1 x: each step needs the x before it). The
// record vector starts inside the tape, in the thread's local memory (128
// doubles there); a loop longer than that grows it on the device heap
// through kinase.device.malloc, which stops the kernel with a message if
// the heap (8 MB unless raised) is exhausted, instead of an illegal
// address later. 40 steps stay in local memory, 500 steps grow twice (the first
// 128 records move from local memory, which is not freed, to the heap).
// Checked against central differences, one thread per starting point.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: FileCheck %s --input-file=%t.O0.ptx
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --check-prefix=LOCAL --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK: .extern .func {{.*}}malloc
// CHECK: call.uni (retval0), vprintf
// CHECK: trap;
//
// Releasing a vector leaves records in local memory where they are:
// LOCAL: isspacep.local

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

enum { N = 512, SHORT = 40, LONG = 500 };

__host__ __device__ double iterate(double x, int n) {
  for (int i = 0; i < n; i++)
    x = 1.5 * sin(x) + 0.1 * x;
  return x;
}

/* Slow enough that the derivative after 500 steps is still of order 1. */
__host__ __device__ double drift(double x, int n) {
  for (int i = 0; i < n; i++)
    x = x + 0.002 * sin(x);
  return x;
}

__global__ void gradients(const double *x, double *dx, double *dlong, int n_short, int n_long) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    dx[i] = __enzyme_autodiff((void *)iterate, enzyme_out, x[i], enzyme_const, n_short);
    dlong[i] = __enzyme_autodiff((void *)drift, enzyme_out, x[i], enzyme_const, n_long);
  }
}

int main(void) {
  static double x[N], dx[N], dlong[N];
  for (int i = 0; i < N; i++)
    x[i] = -3.0 + 6.0 * i / (N - 1);
  require_device();
  double *d_x = to_device(x), *d_dx = device_alloc(dx), *d_dlong = device_alloc(dlong);
  gradients<<<blocks_for(N, 128), 128>>>(d_x, d_dx, d_dlong, SHORT, LONG);
  check_kernel("gradients");
  from_device(dx, d_dx);
  from_device(dlong, d_dlong);
  device_free_all();
  for (int i = 0; i < N; i++) {
    double h = 1e-7, fd = (iterate(x[i] + h, SHORT) - iterate(x[i] - h, SHORT)) / (2 * h);
    check_within(dx[i], fd, 1e-5 * (1 + fabs(fd)), "d iterate / d x at %g", x[i]);
    fd = (drift(x[i] + h, LONG) - drift(x[i] - h, LONG)) / (2 * h);
    check_within(dlong[i], fd, 1e-5 * (1 + fabs(fd)), "d drift / d x at %g", x[i]);
  }
  return check_exit();
}
