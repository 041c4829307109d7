// Reverse mode in device code with Enzyme's enzyme_elementwise_read: each
// thread reads only its own elements of x, so the adjoints of the marked
// function's loads are added to dx without atomics; the same function
// unmarked adds them atomically. Both give the same gradient.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: FileCheck %s --input-file=%t.O0.ptx
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK-LABEL: Begin function __kinase_rev_{{.*}}own_loss
// CHECK-NOT: {{(atom|red)}}.
// CHECK: End function
// CHECK-LABEL: Begin function __kinase_rev_{{.*}}shared_loss
// CHECK: {{(atom|red)}}{{.*}}.add.f32
// CHECK: End function

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

enum { N = 4096 };

// x[0] and x[1] of the thread's own pair
__device__ __attribute__((enzyme_elementwise_read)) float own_loss(const float *x) {
  return sinf(x[0]) * x[1] + x[1] * x[1];
}

__device__ float shared_loss(const float *x) {
  return sinf(x[0]) * x[1] + x[1] * x[1];
}

__global__ void gradients(const float *x, float *dx, float *dy) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    __enzyme_autodiff((void *)own_loss, enzyme_dup, x + 2 * i, dx + 2 * i);
    __enzyme_autodiff((void *)shared_loss, enzyme_dup, x + 2 * i, dy + 2 * i);
  }
}

int main(void) {
  static float x[2 * N], dx[2 * N], dy[2 * N];
  for (int i = 0; i < 2 * N; i++)
    x[i] = -1.0f + 2.0f * i / (2 * N - 1);
  require_device();
  float *d_x = to_device(x), *d_dx = to_device(dx), *d_dy = to_device(dy);
  gradients<<<blocks_for(N, 256), 256>>>(d_x, d_dx, d_dy);
  check_kernel("gradients");
  from_device(dx, d_dx);
  from_device(dy, d_dy);
  device_free_all();
  for (int i = 0; i < N; i++) {
    double a = x[2 * i], b = x[2 * i + 1];
    check_close(dx[2 * i], cos(a) * b, 1e-5, "elementwise d/dx0 at %d", i);
    check_close(dx[2 * i + 1], sin(a) + 2 * b, 1e-5, "elementwise d/dx1 at %d", i);
    check_close(dy[2 * i], cos(a) * b, 1e-5, "atomic d/dx0 at %d", i);
    check_close(dy[2 * i + 1], sin(a) + 2 * b, 1e-5, "atomic d/dx1 at %d", i);
  }
  return check_exit();
}
