// cub's block and warp reductions of floats, as CUDA programmers write them:
// __shared__ typename cub::BlockReduce<float, 128>::TempStorage (raw words
// of integers that hold floats: its shadow is made from the floats stored),
// cub's LaneId() (inline `mov.u32 %laneid`: no derivative) and its warp
// sum's predicated shuffle-and-add assembly (rules/asm.def), both ways in:
//   blocksum (host launch):  out += sum_i exp(x_i)      dx_i = exp(x_i) dout
//   warpsum (host launch):   out += sum_i x_i^2         dx_i = 2 x_i dout
//   logsumexp (device-side request, one block): f = log sum_i exp(x_i)
//                            df/dx_i = softmax_i
// Double sums (another assembly) keep their located refusal.
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
// CHECK-NOT: __kinase_kwhy__Z8blocksum
// CHECK-NOT: __kinase_kwhy__Z7warpsum
// CHECK-DAG: .entry __kinase_krev_dn__Z8blocksumPKfPfi(
// The reverse kernel transposes cub's down shuffles: up shuffles of the
// adjoints.
// CHECK-LABEL: .entry __kinase_krev_dn__Z7warpsumPKfPfi(
// CHECK: shfl.sync.up.b32

#include <kinase.h>
#include <cub/cub.cuh>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { THREADS = 128 };

__global__ void blocksum(const float *x, float *out, int n) {
  typedef cub::BlockReduce<float, THREADS> Reduce;
  __shared__ typename Reduce::TempStorage storage;
  int i = blockIdx.x * THREADS + threadIdx.x;
  float v = i < n ? expf(x[i]) : 0.0f;
  float s = Reduce(storage).Sum(v);
  if (threadIdx.x == 0)
    atomicAdd(out, s);
}

void run_blocksum(const float *x, float *out, int n) {
  blocksum<<<(n + THREADS - 1) / THREADS, THREADS>>>(x, out, n);
}

__global__ void warpsum(const float *x, float *out, int n) {
  typedef cub::WarpReduce<float> Reduce;
  __shared__ typename Reduce::TempStorage storage[THREADS / 32];
  int i = blockIdx.x * THREADS + threadIdx.x;
  float v = i < n ? x[i] * x[i] : 0.0f;
  float s = Reduce(storage[threadIdx.x / 32]).Sum(v);
  if (threadIdx.x % 32 == 0)
    atomicAdd(out, s);
}

void run_warpsum(const float *x, float *out, int n) {
  warpsum<<<(n + THREADS - 1) / THREADS, THREADS>>>(x, out, n);
}

__device__ float logsumexp(const float *x) {
  typedef cub::BlockReduce<float, THREADS> Reduce;
  __shared__ typename Reduce::TempStorage storage;
  __shared__ float total;
  float s = Reduce(storage).Sum(expf(x[threadIdx.x]));
  if (threadIdx.x == 0)
    total = s;
  __syncthreads();
  return logf(total) / THREADS; /* every thread returns its share */
}

__global__ void logsumexp_grad(const float *x, float *dx) {
  __enzyme_autodiff((void *)logsumexp, enzyme_dup, x, dx);
}

static std::vector<float> wave(int n, double a, double b) {
  std::vector<float> v(n);
  for (int i = 0; i < n; i++)
    v[i] = (float)(a * sin(b * i + 0.3));
  return v;
}

int main(void) {
  require_device();
  const int n = 1000;
  std::vector<float> x = wave(n, 1.0, 0.013), zero(n, 0.0f), seed(1, 0.5f);

  float *d_x = to_device(x), *d_dx = to_device(zero), *d_out = device_alloc<float>(1);
  float *d_seed = to_device(seed);
  __enzyme_autodiff((void *)run_blocksum, enzyme_dup, d_x, d_dx, enzyme_dupnoneed, d_out, d_seed,
                    enzyme_const, n);
  check_kernel("blocksum reverse");
  std::vector<float> dx(n);
  from_device(dx, d_dx);
  for (int i = 0; i < n; i++)
    check_close(dx[i], 0.5 * exp(x[i]), 1e-5, "blocksum dx[%d]", i);

  float *d_dx2 = to_device(zero), *d_seed2 = to_device(seed);
  __enzyme_autodiff((void *)run_warpsum, enzyme_dup, d_x, d_dx2, enzyme_dupnoneed, d_out, d_seed2,
                    enzyme_const, n);
  check_kernel("warpsum reverse");
  from_device(dx, d_dx2);
  for (int i = 0; i < n; i++)
    check_close(dx[i], 0.5 * 2 * x[i], 1e-5, "warpsum dx[%d]", i);

  float *d_dx3 = to_device(zero);
  logsumexp_grad<<<1, THREADS>>>(d_x, d_dx3);
  check_kernel("logsumexp gradient");
  from_device(dx, d_dx3);
  double sum = 0;
  for (int i = 0; i < THREADS; i++)
    sum += exp(x[i]);
  for (int i = 0; i < THREADS; i++)
    check_close(dx[i], exp(x[i]) / sum, 1e-5, "logsumexp dx[%d]", i);
  device_free_all();
  return check_exit();
}
