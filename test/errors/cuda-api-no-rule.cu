// A CUDA API call with no row in lib/rules/cuda.def, in a differentiated host
// function: a located error naming it, never a silently dropped derivative.
// REQUIRES: cuda
// RUN: not %kinase-cc -g -O0 --cuda-host-only -S %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 --cuda-host-only -S %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

float pitched_sum(const float *dev, size_t pitch, int rows, int cols) {
  float host[64];
  // CHECK: {{.*}}cuda-api-no-rule.cu:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate '{{.*}}pitched_sum{{.*}}': CUDA API function 'cudaMemcpy2D' has no derivative rule in Kinase
  cudaMemcpy2D(host, cols * sizeof(float), dev, pitch, cols * sizeof(float), rows, cudaMemcpyDeviceToHost);
  float s = 0;
  for (int i = 0; i < rows * cols; i++)
    s += host[i];
  return s;
}

void gradient(const float *dev, float *ddev, size_t pitch) {
  __enzyme_autodiff((void *)pitched_sum, enzyme_dup, dev, ddev, enzyme_const, pitch, enzyme_const,
                    4, enzyme_const, 16);
}
