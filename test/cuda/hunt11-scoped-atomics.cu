// Scoped atomic adds: a block sums into __shared__ accumulators with
// atomicAdd_block (float and double), then one thread adds the block's sums
// into the results with atomicAdd_system and atomicAdd. CUDA's headers make
// the scoped ones NVVM intrinsics (llvm.nvvm.atomic.add.gen.f.cta / .sys),
// not the atomicrmw atomicAdd is, and the kernel used to have no
// derivative kernels ("intrinsic ... has no derivative rule"). Loss =
// sum x^2 + 3 sum x (the float and the double result); reverse and
// forward mode.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK-NOT: __kinase_kwhy
// CHECK-DAG: .entry __kinase_krev_{{[a-z]+}}__Z10block_sums
// CHECK-DAG: .entry __kinase_kfwd_{{[a-z]+}}__Z10block_sums

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 1000 };

__global__ void block_sums(const float *x, float *squares, double *sum, int n) {
  __shared__ float s;
  __shared__ double sd;
  if (threadIdx.x == 0) {
    s = 0.f;
    sd = 0.0;
  }
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd_block(&s, x[i] * x[i]);
    atomicAdd_block(&sd, (double)x[i]);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd_system(squares, s);
    atomicAdd(sum, sd);
  }
}

double loss(const float *h_x, int n) {
  float *x, *squares, sq;
  double *sum, s;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&squares, sizeof(float));
  cudaMalloc(&sum, sizeof(double));
  cudaMemcpy(x, h_x, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(squares, 0, sizeof(float));
  cudaMemset(sum, 0, sizeof(double));
  block_sums<<<(n + 127) / 128, 128>>>(x, squares, sum, n);
  cudaMemcpy(&sq, squares, sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(&s, sum, sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(x);
  cudaFree(squares);
  cudaFree(sum);
  return sq + 3.0 * s;
}

int main() {
  require_device();
  std::vector<float> x(N), dx(N, 0.0f), tx(N);
  double want_t = 0.0;
  for (int i = 0; i < N; i++) {
    x[i] = sinf(0.01f * i);
    tx[i] = 1.0f + 0.001f * i;
    want_t += (2.0 * x[i] + 3.0) * tx[i];
  }
  __enzyme_autodiff((void *)loss, enzyme_dup, x.data(), dx.data(), enzyme_const, N);
  check_kernel("gradient of loss");
  for (int i = 0; i < N; i++)
    check_close(dx[i], 2.0 * x[i] + 3.0, 1e-5, "dx[%d]", i);
  double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x.data(), tx.data(), enzyme_const, N);
  check_kernel("tangent of loss");
  check_close(t, want_t, 1e-4, "tangent");
  return check_exit();
}
