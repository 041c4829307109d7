// Warp-level reductions as CUDA programmers write them, differentiated
// through the host functions that launch them: a double-precision
// __shfl_down_sync tree (doubles travel as two 32-bit halves) over values
// read with __ldg and combined with fma, then one atomicAdd per warp; and
// the same in float with cooperative_groups: a thread_block_tile<32> from
// tiled_partition, its shfl_down, and cg::reduce with cg::plus. The loss is
// sum_i (a x_i^2 + x_i) for the first, sum_i w_i sin(x_i) for the second.
// Reverse and forward mode against analytic gradients.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
// RUN: not grep -E "kwhy.*(warp_sum|tile_sum|reduce_sum)" %t.O0.ptx %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
//
// The reverse of a down shuffle is an up shuffle of the adjoints.
// CHECK-LABEL: .entry __kinase_krev_{{[a-z]+}}__Z8warp_sumPdPKdi(
// CHECK: shfl.sync.up.b32

#include <kinase.h>
#include <math.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "cuda_check.h"

namespace cg = cooperative_groups;

enum { N = 5000, THREADS = 256 };

__global__ void warp_sum(double *total, const double *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double xi = i < n ? __ldg(&x[i]) : 0.0;
  double v = fma(0.75 * xi, xi, xi);
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  if ((threadIdx.x & 31) == 0)
    atomicAdd(total, v);
}

__global__ void tile_sum(float *total, const float *x, const float *w, int n) {
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? fmaf(w[i], sinf(x[i]), 0.0f) : 0.0f;
  for (int offset = tile.size() / 2; offset > 0; offset /= 2)
    v += tile.shfl_down(v, offset);
  if (tile.thread_rank() == 0)
    atomicAdd(total, v);
}

__global__ void reduce_sum(float *total, const float *x, const float *w, int n) {
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? w[i] * sinf(x[i]) : 0.0f;
  float sum = cg::reduce(tile, v, cg::plus<float>());
  if (tile.thread_rank() == 0)
    atomicAdd(total, sum);
}

void loss_double(double *total, const double *x, int n) { warp_sum<<<(n + THREADS - 1) / THREADS, THREADS>>>(total, x, n); }
void loss_tile(float *total, const float *x, const float *w, int n) {
  tile_sum<<<(n + THREADS - 1) / THREADS, THREADS>>>(total, x, w, n);
}
void loss_reduce(float *total, const float *x, const float *w, int n) {
  reduce_sum<<<(n + THREADS - 1) / THREADS, THREADS>>>(total, x, w, n);
}

template <class T> static T *scalar(T v) {
  T *d = device_alloc<T>(1);
  check_cuda(cudaMemcpy(d, &v, sizeof v, cudaMemcpyHostToDevice), "scalar");
  return d;
}
template <class T> static T read(const T *d) {
  T v;
  check_cuda(cudaMemcpy(&v, d, sizeof v, cudaMemcpyDeviceToHost), "read");
  return v;
}

template <void (*loss)(float *, const float *, const float *, int)> static void check_float(const char *what) {
  static float x[N], w[N], v[N], grad[N];
  for (int i = 0; i < N; i++) {
    x[i] = (float)(1.5 * sin(0.013 * i));
    w[i] = (float)(1 + 0.5 * cos(0.7 * i));
    v[i] = (float)cos(0.029 * i);
  }
  float *d_x = to_device(x), *d_w = to_device(w), *d_v = to_device(v), *d_dx = device_alloc<float>(N);
  check_cuda(cudaMemset(d_dx, 0, sizeof grad), "cudaMemset");
  __enzyme_autodiff((void *)loss, enzyme_dupnoneed, scalar(0.0f), scalar(1.0f), enzyme_dup, d_x, d_dx, enzyme_const,
                    d_w, N);
  check_kernel("reverse");
  from_device(grad, d_dx);
  float *d_t = scalar(0.0f);
  __enzyme_fwddiff((void *)loss, enzyme_dup, scalar(0.0f), d_t, enzyme_dup, d_x, d_v, enzyme_const, d_w, N);
  check_kernel("forward");
  double along = 0;
  for (int i = 0; i < N; i++) {
    double d = w[i] * cos((double)x[i]);
    along += d * v[i];
    check_close(grad[i], d, 1e-5, "%s: d/dx[%d]", what, i);
  }
  check_close(read(d_t), along, 1e-3, "%s: tangent", what);
}

int main(void) {
  require_device();
  static double x[N], v[N], grad[N];
  for (int i = 0; i < N; i++) {
    x[i] = 2 * sin(0.011 * i);
    v[i] = sin(0.3 * i);
  }
  double *d_x = to_device(x), *d_v = to_device(v), *d_dx = device_alloc<double>(N);
  check_cuda(cudaMemset(d_dx, 0, sizeof grad), "cudaMemset");
  __enzyme_autodiff((void *)loss_double, enzyme_dupnoneed, scalar(0.0), scalar(1.0), enzyme_dup, d_x, d_dx, N);
  check_kernel("reverse");
  from_device(grad, d_dx);
  double *d_t = scalar(0.0);
  __enzyme_fwddiff((void *)loss_double, enzyme_dup, scalar(0.0), d_t, enzyme_dup, d_x, d_v, N);
  check_kernel("forward");
  double along = 0;
  for (int i = 0; i < N; i++) {
    along += (1.5 * x[i] + 1) * v[i];
    check_close(grad[i], 1.5 * x[i] + 1, 1e-12, "double shuffles: d/dx[%d]", i);
  }
  check_close(read(d_t), along, 1e-10, "double shuffles: tangent");
  check_float<loss_tile>("thread_block_tile shfl_down");
  check_float<loss_reduce>("cg::reduce");
  device_free_all();
  return check_exit();
}
