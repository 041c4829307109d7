// cudaMallocManaged memory written and read by the host in place around a
// kernel, with cudaDeviceSynchronize between: sum((2x)^3), gradient 24 x^2
// in the host shadow of x. The shadows are managed too, and the host code's
// reverse reads the adjoint the reverse kernel wrote there: the runtime waits
// for a reverse kernel whose shadows the host may read in place.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The shadow of managed memory is managed (KINASE_ALLOC_MANAGED, 1).
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_autodiff
// CHECK-DAG: call ptr @__kinase_shadow_alloc(i64 {{.*}}, i32 1,
// CHECK-DAG: call void @__kinase_launch_reverse(

#include <kinase.h>
#include <vector>
#include "cuda_check.h"

__global__ void cube(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * x[i] * x[i];
}

// Managed memory: the host writes the input and reads the result directly.
float managed_sum(const float *x, int n) {
  float *in, *out;
  cudaMallocManaged(&in, n * sizeof(float));
  cudaMallocManaged(&out, n * sizeof(float));
  for (int i = 0; i < n; i++)
    in[i] = 2.0f * x[i];
  cube<<<(n + 63) / 64, 64>>>(out, in, n);
  cudaDeviceSynchronize();
  float s = 0;
  for (int i = 0; i < n; i++)
    s += out[i];
  cudaFree(in);
  cudaFree(out);
  return s;
}

int main() {
  require_device();
  const int n = 500;
  std::vector<float> x(n), dx(n, 0.0f);
  for (int i = 0; i < n; i++)
    x[i] = 0.01f * (i % 41) - 0.2f;
  __enzyme_autodiff((void *)managed_sum, enzyme_dup, x.data(), dx.data(), enzyme_const, n);
  check_kernel("gradient of managed_sum");
  // d/dx (2x)^3 = 24 x^2
  for (int i = 0; i < n; i++)
    check_close(dx[i], 24.0 * x[i] * x[i], 1e-4, "dx[%d]", i);
  return check_exit();
}
