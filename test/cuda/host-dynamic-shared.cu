// A launch with dynamic shared memory (extern __shared__, a tree reduction
// of x^2 per block), the partials copied back and summed on the host: the
// norm sqrt(sum x^2), gradient x / norm. Two block sizes, so two amounts of
// dynamic shared memory; the reverse kernel gets twice as much (the shadow).
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
// The launch's dynamic shared memory (threads * 4 bytes) goes to the runtime.
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_autodiff
// CHECK-DAG: @__kinase_launch_augment(ptr {{.*}}block_sums
// CHECK-DAG: call void @__kinase_launch_reverse(

#include <kinase.h>
#include <vector>
#include "cuda_check.h"

// Per-block sums of x^2 through dynamic shared memory (a tree reduction),
// one partial per block.
__global__ void block_sums(float *partial, const float *x, int n) {
  extern __shared__ float buffer[];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  buffer[t] = i < n ? x[i] * x[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s)
      buffer[t] += buffer[t + s];
    __syncthreads();
  }
  if (t == 0)
    partial[blockIdx.x] = buffer[0];
}

// sqrt(sum x^2): the norm, the partials summed on the host.
float norm(const float *d_x, int n, int threads) {
  int blocks = (n + threads - 1) / threads;
  float *d_partial;
  cudaMalloc(&d_partial, blocks * sizeof(float));
  block_sums<<<blocks, threads, threads * sizeof(float)>>>(d_partial, d_x, n);
  std::vector<float> partial(blocks);
  cudaMemcpy(partial.data(), d_partial, blocks * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d_partial);
  float s = 0;
  for (int b = 0; b < blocks; b++)
    s += partial[b];
  return sqrtf(s);
}

int main() {
  require_device();
  const int n = 5000;
  std::vector<float> x(n);
  double s = 0;
  for (int i = 0; i < n; i++) {
    x[i] = cosf(0.01f * i);
    s += (double)x[i] * x[i];
  }
  float *d_x = to_device(x), *d_dx = device_alloc<float>(n);
  for (int threads : {128, 512}) {
    check_cuda(cudaMemset(d_dx, 0, n * sizeof(float)), "memset");
    __enzyme_autodiff((void *)norm, enzyme_dup, d_x, d_dx, enzyme_const, n, enzyme_const, threads);
    check_kernel("gradient of norm");
    std::vector<float> dx(n);
    from_device(dx, d_dx);
    for (int i = 0; i < n; i++)
      check_close(dx[i], x[i] / sqrt(s), 1e-4, "%d threads: dx[%d]", threads, i);
  }
  return check_exit();
}
