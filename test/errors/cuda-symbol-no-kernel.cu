// cudaMemcpyFromSymbol in a differentiated host function, of a __device__
// variable of a file that defines no kernel: Kinase finds a variable's
// shadow through a kernel of its file, so this is a located error, never a
// silently dropped derivative.
// REQUIRES: cuda
// RUN: not %kinase-cc -g -O0 --cuda-host-only -S %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 --cuda-host-only -S %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

__device__ float total;

float read_back(const float *x, int n) {
  float t;
  // CHECK: cuda-symbol-no-kernel.cu:[[@LINE+1]]:3: error: kinase: cannot differentiate '{{.*}}read_back{{.*}}': cudaMemcpyFromSymbol of a variable of a file without kernels: Kinase finds the shadow of a __device__ variable through the kernels of the file that defines it
  cudaMemcpyFromSymbol(&t, total, sizeof t);
  return t * x[0];
}

void gradient(const float *x, float *dx, int n) {
  __enzyme_autodiff((void *)read_back, enzyme_dup, x, dx, enzyme_const, n);
}
