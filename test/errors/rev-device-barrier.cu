// Reverse mode in device code through __syncthreads is not supported yet:
// the reverse sweep would need barriers of its own (adjoints flow back
// through memory other threads wrote). A located error, never a racy
// derivative.
// REQUIRES: cuda
// RUN: not %kinase-cc -g -O0 --cuda-device-only -S %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 --cuda-device-only -S %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

__device__ double neighbour_square(double *x) {
  x[threadIdx.x] = x[threadIdx.x] * x[threadIdx.x];
  // CHECK: {{.*}}rev-device-barrier.cu:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate '{{.*}}neighbour_square{{.*}}': reverse mode through a barrier (__syncthreads) is not supported yet
  __syncthreads();
  return x[(threadIdx.x + 1) % 32];
}

__global__ void gradient(double *x, double *dx) { __enzyme_autodiff((void *)neighbour_square, enzyme_dup, x, dx); }
// CHECK: 1 error generated
