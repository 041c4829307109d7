// A kernel Kinase cannot differentiate yet (a block reduction through
// __shared__ memory and __syncthreads) still compiles: its module holds the
// reason instead of derivative kernels, which a differentiated launch of it
// reports at run time. A kernel beside it gets its derivative kernels.
// REQUIRES: cuda
// RUN: %kinase-cc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
//
// CHECK-DAG: .global .align 4 .b8 __kinase_kinfo__Z9block_sumPfPKf
// CHECK-DAG: .global .align 4 .b8 __kinase_kwhy__Z9block_sumPfPKf
// CHECK-DAG: .entry __kinase_krev_dc__Z6squarePfPKf(
// CHECK-NOT: __kinase_krev_{{.*}}block_sum

__global__ void block_sum(float *out, const float *x) {
  __shared__ float part[256];
  part[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s)
      part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = part[0];
}

__global__ void square(float *y, const float *x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = x[i] * x[i];
}
