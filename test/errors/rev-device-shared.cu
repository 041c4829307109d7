// Reverse mode in device code through __shared__ memory is not supported
// yet (its shadow would be shared memory too, which cannot be zeroed
// before adjoints go into it). A located error. At -O2 the store and load
// below are forwarded and no shared memory is left to refuse.
// REQUIRES: cuda
// RUN: not %kinase-cc -g -O0 --cuda-device-only -S %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

__device__ double own_slot(const double *x) {
  __shared__ double tmp[32];
  // CHECK: {{.*}}rev-device-shared.cu:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate '{{.*}}own_slot{{.*}}': reverse mode through __shared__ memory is not supported yet
  tmp[threadIdx.x] = x[threadIdx.x] * x[threadIdx.x];
  return tmp[threadIdx.x];
}

__global__ void gradient(const double *x, double *dx) { __enzyme_autodiff((void *)own_slot, enzyme_dup, x, dx); }
// CHECK: 1 error generated
