// Reverse mode in device code through a loop whose every iteration must be
// recorded (x = 1.5 sin x: each step needs the x before it): the record
// vector is the one thing on the device heap. Allocation goes through
// kinase.device.malloc, which stops the kernel with a message if the heap
// (8 MB unless raised) is exhausted, instead of an illegal address later.
// Checked against central differences, one thread per starting point.
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
// CHECK: .extern .func {{.*}}malloc
// CHECK: call.uni (retval0), vprintf
// CHECK: trap;

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

enum { N = 512, STEPS = 40 };

__host__ __device__ double iterate(double x, int n) {
  for (int i = 0; i < n; i++)
    x = 1.5 * sin(x) + 0.1 * x;
  return x;
}

__global__ void gradients(const double *x, double *dx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N)
    dx[i] = __enzyme_autodiff((void *)iterate, enzyme_out, x[i], enzyme_const, n);
}

int main(void) {
  static double x[N], dx[N];
  for (int i = 0; i < N; i++)
    x[i] = -3.0 + 6.0 * i / (N - 1);
  require_device();
  double *d_x = to_device(x), *d_dx = device_alloc(dx);
  gradients<<<blocks_for(N, 128), 128>>>(d_x, d_dx, STEPS);
  check_kernel("gradients");
  from_device(dx, d_dx);
  device_free_all();
  for (int i = 0; i < N; i++) {
    double h = 1e-7, fd = (iterate(x[i] + h, STEPS) - iterate(x[i] - h, STEPS)) / (2 * h);
    check_within(dx[i], fd, 1e-5 * (1 + fabs(fd)), "d iterate / d x at %g", x[i]);
  }
  return check_exit();
}
