// cub's block and warp reductions of floats, as CUDA programmers write them:
// __shared__ typename cub::BlockReduce<float, 128>::TempStorage (raw words
// of integers that hold floats: its shadow is made from the floats stored),
// cub's LaneId() (inline `mov.u32 %laneid`: no derivative) and its warp
// sum's predicated shuffle-and-add assembly (rules/asm.def), both ways in:
//   blocksum (host launch):  out += sum_i exp(x_i)      dx_i = exp(x_i) dout
//   warpsum (host launch):   out += sum_i x_i^2         dx_i = 2 x_i dout
//   logsumexp (device-side request, one block): f = log sum_i exp(x_i)
//                            df/dx_i = softmax_i
// and blocksum and warpsum of doubles, whose warp step is another assembly
// (the two 32-bit halves of the double shuffled: rules/asm.def); it was
// refused ("no derivative rule for the inline assembly").
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
// CHECK-DAG: .entry __kinase_krev_dn__Z8blocksumIfEvPKT_PS0_i(
// The reverse kernel transposes cub's down shuffles: up shuffles of the
// adjoints (of a double's two halves).
// CHECK-LABEL: .entry __kinase_krev_dn__Z7warpsumIfEvPKT_PS0_i(
// CHECK: shfl.sync.up.b32
// CHECK-DAG: .entry __kinase_krev_dn__Z8blocksumIdEvPKT_PS0_i(
// CHECK-LABEL: .entry __kinase_krev_dn__Z7warpsumIdEvPKT_PS0_i(
// CHECK: shfl.sync.up.b32
// CHECK: shfl.sync.up.b32

#include <kinase.h>
#include <cub/cub.cuh>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { THREADS = 128 };

template <typename T> __global__ void blocksum(const T *x, T *out, int n) {
  typedef cub::BlockReduce<T, THREADS> Reduce;
  __shared__ typename Reduce::TempStorage storage;
  int i = blockIdx.x * THREADS + threadIdx.x;
  T v = i < n ? exp(x[i]) : T(0);
  T s = Reduce(storage).Sum(v);
  if (threadIdx.x == 0)
    atomicAdd(out, s);
}

template <typename T> void run_blocksum(const T *x, T *out, int n) {
  blocksum<T><<<(n + THREADS - 1) / THREADS, THREADS>>>(x, out, n);
}

template <typename T> __global__ void warpsum(const T *x, T *out, int n) {
  typedef cub::WarpReduce<T> Reduce;
  __shared__ typename Reduce::TempStorage storage[THREADS / 32];
  int i = blockIdx.x * THREADS + threadIdx.x;
  T v = i < n ? x[i] * x[i] : T(0);
  T s = Reduce(storage[threadIdx.x / 32]).Sum(v);
  if (threadIdx.x % 32 == 0)
    atomicAdd(out, s);
}

template <typename T> void run_warpsum(const T *x, T *out, int n) {
  warpsum<T><<<(n + THREADS - 1) / THREADS, THREADS>>>(x, out, n);
}

/* Both sums of T, reverse mode: dx = dout * exp(x), then dout * 2 x. */
template <typename T> void check_sums(const std::vector<float> &values) {
  const int n = (int)values.size();
  std::vector<T> x(values.begin(), values.end()), zero(n, T(0)), seed(1, T(0.5)), dx(n);
  T *d_x = to_device(x), *d_dx = to_device(zero), *d_out = device_alloc<T>(1), *d_seed = to_device(seed);
  __enzyme_autodiff((void *)run_blocksum<T>, enzyme_dup, d_x, d_dx, enzyme_dupnoneed, d_out, d_seed,
                    enzyme_const, n);
  check_kernel("blocksum reverse");
  from_device(dx, d_dx);
  for (int i = 0; i < n; i++)
    check_close(dx[i], 0.5 * exp((double)x[i]), 1e-5, "blocksum<%zu bytes> dx[%d]", sizeof(T), i);

  T *d_dx2 = to_device(zero), *d_seed2 = to_device(seed);
  __enzyme_autodiff((void *)run_warpsum<T>, enzyme_dup, d_x, d_dx2, enzyme_dupnoneed, d_out, d_seed2,
                    enzyme_const, n);
  check_kernel("warpsum reverse");
  from_device(dx, d_dx2);
  for (int i = 0; i < n; i++)
    check_close(dx[i], 0.5 * 2 * (double)x[i], 1e-5, "warpsum<%zu bytes> dx[%d]", sizeof(T), i);
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
  std::vector<float> x = wave(n, 1.0, 0.013), zero(n, 0.0f), dx(n);
  check_sums<float>(x);
  check_sums<double>(x);

  float *d_x = to_device(x), *d_dx3 = to_device(zero);
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
