// What device code still cannot differentiate, each a located error, never a
// racy or silently wrong derivative: the old value an atomicAdd returns used
// in the result, atomicExch on differentiated memory, and extern __shared__
// (dynamic) arrays in split mode (__enzyme_augmentfwd), which gives them no
// shadow (__enzyme_autodiff and __enzyme_fwddiff do: the second half of the
// launch's dynamic shared memory). The atomics, inside CUDA's atomicAdd and
// atomicExch (clang's header), are reported where they are called.
// REQUIRES: cuda
// RUN: not %kinase-cc -g -O0 --cuda-device-only -S %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 --cuda-device-only -S %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

extern __device__ void *__enzyme_augmentfwd(void *, ...);

__device__ float ticket(float *total, const float *x) {
  // CHECK-DAG: {{.*}}device-atomics-and-dynamic-shared.cu:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate '{{.*}}ticket{{.*}}': it uses the value an atomicAdd returns (the old value)
  float before = atomicAdd(total, x[threadIdx.x]);
  return before * x[threadIdx.x];
}

__device__ float swap_in(float *slot, const float *x) {
  // CHECK-DAG: {{.*}}device-atomics-and-dynamic-shared.cu:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate '{{.*}}swap_in{{.*}}': it uses an atomic operation other than atomicAdd
  float old = atomicExch(slot, x[threadIdx.x] * 2.f);
  return old;
}

__device__ float staged(const float *x) {
  extern __shared__ float stage[];
  // CHECK-DAG: {{.*}}device-atomics-and-dynamic-shared.cu:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate '{{.*}}staged{{.*}}': it stores a differentiated value into extern __shared__ array 'stage' (dynamic shared memory), which has a shadow only in __enzyme_autodiff and __enzyme_fwddiff
  stage[threadIdx.x] = x[threadIdx.x] * x[threadIdx.x];
  __syncthreads();
  return stage[(threadIdx.x + 1) % blockDim.x];
}

__global__ void gradients(float *t, float *dt, const float *x, float *dx) {
  __enzyme_autodiff((void *)ticket, enzyme_dup, t, dt, enzyme_dup, x, dx);
  __enzyme_autodiff((void *)swap_in, enzyme_dup, t, dt, enzyme_dup, x, dx);
  __enzyme_augmentfwd((void *)staged, enzyme_dup, x, dx);
}
// CHECK: 3 errors generated
