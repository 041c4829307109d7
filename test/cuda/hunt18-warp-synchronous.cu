// Warp-synchronous code and atomics as older CUDA code writes them, in
// kernels launched from differentiated host functions and in a device-side
// request:
// - the CUDA samples' reduce5: a tree in __shared__ memory, then the last
//   warp's six steps through a `volatile float *` with no __syncwarp
//   (`v[tid] = s = s + v[tid + 16]`), and the same written `v[tid] +=
//   v[tid + 16]`; the lanes read each other's stores in step. The reverse
//   kernel read each lane's adjoint of a step without waiting for the other
//   lanes' adds into it (the read was even folded into the clear before it):
//   only the elements lane 0 reads directly got a gradient. The reverse sweep
//   now waits for the warp (__syncwarp(__activemask())) at each volatile
//   store's reverse, as a __syncwarp there would make it.
// - the same steps with __syncwarp between them;
// - warp-aggregated atomics by hand: a ballot of the lanes with positive
//   values, a butterfly sum, the ballot's first lane (__ffs) adding the
//   warp's sum and __popc(ballot) into two counters; the host divides;
// - atomicAdd into per-block __shared__ bins, then one global atomicAdd per
//   bin, of the bin's square;
// - atomicAdd on doubles into five accumulators.
// The device-side request differentiates a block's sum of squares written
// as reduce5, returned by thread 0.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK-NOT: @__kinase_kwhy__Z{{[0-9]+(reduce|warp_agg|shared_bins|double_acc)}}
// CHECK-LABEL: define ptx_kernel void @__kinase_krev_dn__Z10reduce_addPKfPfi(
// CHECK-COUNT-6: call void @llvm.nvvm.bar.warp.sync(i32 %{{[0-9]+}})
// CHECK: ret void
// CHECK-LABEL: define ptx_kernel void @__kinase_krev_dn__Z7reduce5PKfPfi(
// CHECK-COUNT-6: call void @llvm.nvvm.bar.warp.sync(i32 %{{[0-9]+}})
// CHECK: ret void

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 3000, BS = 128, NB = 8 };

__device__ void warp_steps(float *sdata, unsigned tid, float s) {
  volatile float *v = sdata;
  v[tid] = s = s + v[tid + 32];
  v[tid] = s = s + v[tid + 16];
  v[tid] = s = s + v[tid + 8];
  v[tid] = s = s + v[tid + 4];
  v[tid] = s = s + v[tid + 2];
  v[tid] = s = s + v[tid + 1];
}

/* The block's tree down to 64 partial sums, written `+=`. */
__device__ void tree_to_warp(float *sdata, unsigned tid, float v) {
  sdata[tid] = v;
  __syncthreads();
  for (unsigned k = BS / 2; k > 32; k >>= 1) {
    if (tid < k)
      sdata[tid] += sdata[tid + k];
    __syncthreads();
  }
}

__global__ void reduce_add(const float *in, float *out, int n) {
  __shared__ float sdata[BS];
  unsigned tid = threadIdx.x, i = blockIdx.x * BS + tid;
  tree_to_warp(sdata, tid, i < n ? in[i] * in[i] : 0.f);
  if (tid < 32) {
    volatile float *v = sdata;
    v[tid] += v[tid + 32];
    v[tid] += v[tid + 16];
    v[tid] += v[tid + 8];
    v[tid] += v[tid + 4];
    v[tid] += v[tid + 2];
    v[tid] += v[tid + 1];
  }
  if (tid == 0)
    atomicAdd(out, sdata[0]);
}

__global__ void reduce_syncwarp(const float *in, float *out, int n) {
  __shared__ float sdata[BS];
  unsigned tid = threadIdx.x, i = blockIdx.x * BS + tid;
  tree_to_warp(sdata, tid, i < n ? in[i] * in[i] : 0.f);
  if (tid < 32) {
    volatile float *v = sdata;
    for (unsigned k = 32; k > 0; k >>= 1) {
      v[tid] += v[tid + k];
      __syncwarp();
    }
  }
  if (tid == 0)
    atomicAdd(out, sdata[0]);
}

__global__ void warp_aggregated(const float *x, float *sum, int *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.f;
  bool positive = v > 0.f;
  unsigned lanes = __ballot_sync(0xffffffffu, positive);
  float t = positive ? v * v : 0.f;
  for (int o = 16; o > 0; o >>= 1)
    t += __shfl_xor_sync(0xffffffffu, t, o);
  if (lanes && (int)(threadIdx.x & 31) == __ffs(lanes) - 1) {
    atomicAdd(sum, t);
    atomicAdd(count, __popc(lanes));
  }
}

__global__ void shared_bins(const float *x, const int *key, float *out, int n) {
  __shared__ float bins[NB];
  if (threadIdx.x < NB)
    bins[threadIdx.x] = 0.f;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[key[i] % NB], sinf(x[i]));
  __syncthreads();
  if (threadIdx.x < NB)
    atomicAdd(&out[threadIdx.x], bins[threadIdx.x] * bins[threadIdx.x]);
}

__global__ void double_accumulate(const double *x, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&out[i % 5], x[i] * x[i] * x[i]);
}

/* A block's sum of squares, reduce5 style, returned by thread 0 (the
 * others return 0, so a request's seed counts once a block). */
__device__ float block_squares(const float *x, int n) {
  __shared__ float sdata[BS];
  unsigned tid = threadIdx.x, i = blockIdx.x * BS + tid;
  float s = i < n ? x[i] * x[i] : 0.f;
  sdata[tid] = s;
  __syncthreads();
  for (unsigned k = BS / 2; k > 32; k >>= 1) {
    if (tid < k)
      sdata[tid] = s = s + sdata[tid + k];
    __syncthreads();
  }
  if (tid < 32)
    warp_steps(sdata, tid, s);
  __syncthreads();
  return tid == 0 ? sdata[0] : 0.f;
}

__global__ void reduce5(const float *in, float *out, int n) {
  float s = block_squares(in, n);
  if (threadIdx.x == 0)
    atomicAdd(out, s);
}

__global__ void block_squares_grad(const float *x, float *dx, int n) {
  __enzyme_autodiff((void *)block_squares, enzyme_dup, x, dx, enzyme_const, n);
}

static float launch_sum(void (*kernel)(const float *, float *, int), const float *d_in, int n) {
  float *out, r;
  cudaMalloc(&out, sizeof(float));
  cudaMemset(out, 0, sizeof(float));
  kernel<<<(n + BS - 1) / BS, BS>>>(d_in, out, n);
  cudaMemcpy(&r, out, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(out);
  return r;
}
float sum_reduce5(const float *d_in, int n) { return launch_sum(reduce5, d_in, n); }
float sum_reduce_add(const float *d_in, int n) { return launch_sum(reduce_add, d_in, n); }
float sum_reduce_syncwarp(const float *d_in, int n) { return launch_sum(reduce_syncwarp, d_in, n); }

float mean_positive_squares(const float *d_in, int n) {
  float *sum, r;
  int *count, c;
  cudaMalloc(&sum, sizeof(float));
  cudaMalloc(&count, sizeof(int));
  cudaMemset(sum, 0, sizeof(float));
  cudaMemset(count, 0, sizeof(int));
  warp_aggregated<<<(n + BS - 1) / BS, BS>>>(d_in, sum, count, n);
  cudaMemcpy(&c, count, sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(&r, sum, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(sum);
  cudaFree(count);
  return r / c;
}

float weighted_bins(const float *d_in, const int *d_key, int n) {
  float *out, r[NB];
  cudaMalloc(&out, sizeof r);
  cudaMemset(out, 0, sizeof r);
  shared_bins<<<(n + BS - 1) / BS, BS>>>(d_in, d_key, out, n);
  cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
  cudaFree(out);
  float s = 0;
  for (int k = 0; k < NB; k++)
    s += r[k] * (k + 1);
  return s;
}

double weighted_cubes(const double *d_in, int n) {
  double *out, r[5];
  cudaMalloc(&out, sizeof r);
  cudaMemset(out, 0, sizeof r);
  double_accumulate<<<(n + BS - 1) / BS, BS>>>(d_in, out, n);
  cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
  cudaFree(out);
  return r[0] + 2 * r[1] + 3 * r[2] + 4 * r[3] + 5 * r[4];
}

int main() {
  require_device();
  std::vector<float> x(N), dx(N);
  std::vector<int> key(N);
  std::vector<double> xd(N), dxd(N);
  int positive = 0;
  for (int i = 0; i < N; i++) {
    x[i] = sinf(0.37f * i);
    xd[i] = x[i];
    key[i] = (int)((i * 2654435761u) >> 7);
    positive += x[i] > 0;
  }
  float *d_x = to_device(x), *d_dx = device_alloc<float>(N);
  int *d_key = to_device(key);
  double *d_xd = to_device(xd), *d_dxd = device_alloc<double>(N);

  float (*sums[3])(const float *, int) = {sum_reduce5, sum_reduce_add, sum_reduce_syncwarp};
  const char *names[3] = {"reduce5", "reduce_add", "reduce_syncwarp"};
  for (int c = 0; c < 3; c++) {
    check_cuda(cudaMemset(d_dx, 0, N * sizeof(float)), "memset");
    if (c == 0)
      __enzyme_autodiff((void *)sum_reduce5, enzyme_dup, d_x, d_dx, enzyme_const, N);
    else if (c == 1)
      __enzyme_autodiff((void *)sum_reduce_add, enzyme_dup, d_x, d_dx, enzyme_const, N);
    else
      __enzyme_autodiff((void *)sum_reduce_syncwarp, enzyme_dup, d_x, d_dx, enzyme_const, N);
    check_kernel(names[c]);
    from_device(dx, d_dx);
    for (int i = 0; i < N; i++)
      check_close(dx[i], 2.0 * x[i], 1e-5, "%s: dx[%d]", names[c], i);
    double s = 0;
    for (int i = 0; i < N; i++)
      s += (double)x[i] * x[i];
    check_close(sums[c](d_x, N), s, 1e-4, "%s: value", names[c]);
  }

  check_cuda(cudaMemset(d_dx, 0, N * sizeof(float)), "memset");
  __enzyme_autodiff((void *)mean_positive_squares, enzyme_dup, d_x, d_dx, enzyme_const, N);
  check_kernel("warp_aggregated");
  from_device(dx, d_dx);
  for (int i = 0; i < N; i++)
    check_close(dx[i], x[i] > 0 ? 2.0 * x[i] / positive : 0.0, 1e-5, "warp_aggregated: dx[%d]", i);

  check_cuda(cudaMemset(d_dx, 0, N * sizeof(float)), "memset");
  __enzyme_autodiff((void *)weighted_bins, enzyme_dup, d_x, d_dx, enzyme_const, d_key, enzyme_const, N);
  check_kernel("shared_bins");
  from_device(dx, d_dx);
  std::vector<double> bins((N + BS - 1) / BS * NB, 0.0);
  for (int i = 0; i < N; i++)
    bins[i / BS * NB + key[i] % NB] += sin((double)x[i]);
  for (int i = 0; i < N; i++) {
    int k = key[i] % NB;
    check_close(dx[i], (k + 1) * 2 * bins[i / BS * NB + k] * cos((double)x[i]), 1e-4, "shared_bins: dx[%d]", i);
  }

  check_cuda(cudaMemset(d_dxd, 0, N * sizeof(double)), "memset");
  __enzyme_autodiff((void *)weighted_cubes, enzyme_dup, d_xd, d_dxd, enzyme_const, N);
  check_kernel("double_accumulate");
  from_device(dxd, d_dxd);
  for (int i = 0; i < N; i++)
    check_close(dxd[i], (i % 5 + 1) * 3 * xd[i] * xd[i], 1e-12, "double_accumulate: dx[%d]", i);

  check_cuda(cudaMemset(d_dx, 0, N * sizeof(float)), "memset");
  block_squares_grad<<<(N + BS - 1) / BS, BS>>>(d_x, d_dx, N);
  check_kernel("block_squares_grad");
  from_device(dx, d_dx);
  for (int i = 0; i < N; i++)
    check_close(dx[i], 2.0 * x[i], 1e-5, "block_squares request: dx[%d]", i);

  device_free_all();
  return check_exit();
}
