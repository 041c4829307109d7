// atomicAdd on __half, __nv_bfloat16, __half2 and __nv_bfloat162 in
// kernels launched from a differentiated host function, as mixed-precision
// code writes them: per-bin sums of squares in half (global memory), a
// bfloat16 histogram, pair accumulators (__half2, __nv_bfloat162), and a
// block's sum in a __shared__ __half added into the result by one thread.
// CUDA's headers write these atomicAdds as assembly (atom.add.noftz.f16,
// .bf16, .f16x2, .bf16x2); Kinase reads them as an atomicrmw fadd of half,
// bfloat or a pair: dv += dbins[bin], read back, and the adjoints into
// 16-bit shadows are the same native atom instructions (no compare-and-swap
// loop). The host reads the results back into std::vector<__half> and sums
// them with range-for loops and __half2float, which with these vectors
// among the locals clang calls by invoke.
//   loss = sum_b wb(b) hbins[b] + 0.5 sum_b bbins[b] + sum_k (acc2[k].x + 2 acc2[k].y)
//          + sum_k (bacc2[k].x - bacc2[k].y) + 3 block_total
// Gradients against the analytic ones; forward mode along a direction
// against the gradient.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --check-prefix=O0 --input-file=%t.O0.ptx
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK-NOT: __kinase_kwhy
// The forward kernels add the tangents with the native instructions:
// CHECK-LABEL: .entry __kinase_kfwd_{{[a-z]+}}__Z8bin_half
// CHECK: atom.global.add.noftz.f16
// CHECK-LABEL: .entry __kinase_kfwd_{{[a-z]+}}__Z8bin_bf16
// CHECK: atom.global.add.noftz.bf16
// CHECK-LABEL: .entry __kinase_kfwd_{{[a-z]+}}__Z10pair_half2
// CHECK-NOT: atom{{.*}}cas
// CHECK: atom.add.noftz.f16x2
// CHECK-LABEL: .entry __kinase_kfwd_{{[a-z]+}}__Z10pair_bf162
// CHECK-NOT: atom{{.*}}cas
// CHECK: atom.add.noftz.bf16x2
// O0-NOT: atom{{.*}}.cas.

#include <kinase.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 1024, BINS = 8, PAIRS = 4, THREADS = 128 };

__global__ void bin_half(__half *bins, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[i % BINS], __float2half(x[i] * x[i]));
}

__global__ void bin_bf16(__nv_bfloat16 *bins, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[(i / 3) % BINS], __float2bfloat16(3.0f * x[i]));
}

__global__ void pair_half2(__half2 *acc, const __half2 *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&acc[i % PAIRS], __hmul2(v[i], v[i]));
}

__global__ void pair_bf162(__nv_bfloat162 *acc, const __nv_bfloat162 *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&acc[i % PAIRS], __hmul2(v[i], __floats2bfloat162_rn(2.0f, -1.0f)));
}

__global__ void block_half(__half *total, const __half *x, int n) {
  __shared__ __half sum;
  if (threadIdx.x == 0)
    sum = __float2half(0.0f);
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&sum, x[i]);
  __syncthreads();
  if (threadIdx.x == 0)
    atomicAdd(total, sum);
}

static float bin_weight(int b) { return 1.0f + 0.125f * b; }

float loss(const float *x, const __half2 *v, const __nv_bfloat162 *w, const __half *y, int n) {
  __half *hbins, *total;
  __nv_bfloat16 *bbins;
  __half2 *acc;
  __nv_bfloat162 *bacc;
  cudaMalloc(&hbins, BINS * sizeof(__half));
  cudaMalloc(&bbins, BINS * sizeof(__nv_bfloat16));
  cudaMalloc(&acc, PAIRS * sizeof(__half2));
  cudaMalloc(&bacc, PAIRS * sizeof(__nv_bfloat162));
  cudaMalloc(&total, sizeof(__half));
  cudaMemset(hbins, 0, BINS * sizeof(__half));
  cudaMemset(bbins, 0, BINS * sizeof(__nv_bfloat16));
  cudaMemset(acc, 0, PAIRS * sizeof(__half2));
  cudaMemset(bacc, 0, PAIRS * sizeof(__nv_bfloat162));
  cudaMemset(total, 0, sizeof(__half));
  unsigned blocks = (n + THREADS - 1) / THREADS;
  bin_half<<<blocks, THREADS>>>(hbins, x, n);
  bin_bf16<<<blocks, THREADS>>>(bbins, x, n);
  pair_half2<<<blocks, THREADS>>>(acc, v, n);
  pair_bf162<<<blocks, THREADS>>>(bacc, w, n);
  block_half<<<blocks, THREADS>>>(total, y, n);
  std::vector<__half> h(BINS), t(1);
  std::vector<__nv_bfloat16> bf(BINS);
  std::vector<__half2> a2(PAIRS);
  std::vector<__nv_bfloat162> b2(PAIRS);
  cudaMemcpy(h.data(), hbins, BINS * sizeof(__half), cudaMemcpyDeviceToHost);
  cudaMemcpy(bf.data(), bbins, BINS * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost);
  cudaMemcpy(a2.data(), acc, PAIRS * sizeof(__half2), cudaMemcpyDeviceToHost);
  cudaMemcpy(b2.data(), bacc, PAIRS * sizeof(__nv_bfloat162), cudaMemcpyDeviceToHost);
  cudaMemcpy(t.data(), total, sizeof(__half), cudaMemcpyDeviceToHost);
  float sum = 3.0f * __half2float(t[0]);
  int b = 0;
  for (__half value : h)
    sum += bin_weight(b++) * __half2float(value);
  for (const __nv_bfloat16 &value : bf)
    sum += 0.5f * __bfloat162float(value);
  for (__half2 p : a2)
    sum += __low2float(p) + 2.0f * __high2float(p);
  for (__nv_bfloat162 p : b2)
    sum += __low2float(p) - __high2float(p);
  cudaFree(hbins);
  cudaFree(bbins);
  cudaFree(acc);
  cudaFree(bacc);
  cudaFree(total);
  return sum;
}

int main() {
  require_device();
  std::vector<float> x(N), tx(N);
  std::vector<__half2> v(N), tv(N);
  std::vector<__nv_bfloat162> w(N), tw(N);
  std::vector<__half> y(N), ty(N);
  for (int i = 0; i < N; i++) {
    x[i] = 0.25f * sinf(0.37f * i);
    tx[i] = cosf(0.11f * i);
    v[i] = __floats2half2_rn(0.5f * cosf(0.21f * i), 0.25f * sinf(0.13f * i));
    tv[i] = __floats2half2_rn(sinf(0.7f * i), cosf(0.3f * i));
    w[i] = __floats2bfloat162_rn(0.125f * i / N, -0.5f);
    tw[i] = __floats2bfloat162_rn(cosf(0.9f * i), 0.5f);
    y[i] = __float2half(0.001f * (i % 17));
    ty[i] = __float2half(0.5f * sinf(0.05f * i));
  }
  float *d_x = to_device(x), *d_dx = device_alloc<float>(N), *d_tx = to_device(tx);
  __half2 *d_v = to_device(v), *d_dv = device_alloc<__half2>(N), *d_tv = to_device(tv);
  __nv_bfloat162 *d_w = to_device(w), *d_dw = device_alloc<__nv_bfloat162>(N), *d_tw = to_device(tw);
  __half *d_y = to_device(y), *d_dy = device_alloc<__half>(N), *d_ty = to_device(ty);
  check_cuda(cudaMemset(d_dx, 0, N * sizeof(float)), "memset");
  check_cuda(cudaMemset(d_dv, 0, N * sizeof(__half2)), "memset");
  check_cuda(cudaMemset(d_dw, 0, N * sizeof(__nv_bfloat162)), "memset");
  check_cuda(cudaMemset(d_dy, 0, N * sizeof(__half)), "memset");
  __enzyme_autodiff((void *)loss, enzyme_dup, d_x, d_dx, enzyme_dup, d_v, d_dv, enzyme_dup, d_w, d_dw,
                    enzyme_dup, d_y, d_dy, enzyme_const, N);
  check_kernel("gradient of loss");
  double tangent = __enzyme_fwddiff((void *)loss, enzyme_dup, d_x, d_tx, enzyme_dup, d_v, d_tv, enzyme_dup,
                                    d_w, d_tw, enzyme_dup, d_y, d_ty, enzyme_const, N);
  check_kernel("tangent of loss");
  std::vector<float> dx(N);
  std::vector<__half2> dv(N);
  std::vector<__nv_bfloat162> dw(N);
  std::vector<__half> dy(N);
  from_device(dx, d_dx);
  from_device(dv, d_dv);
  from_device(dw, d_dw);
  from_device(dy, d_dy);
  double t_want = 0;
  for (int i = 0; i < N; i++) {
    double want_x = bin_weight(i % BINS) * 2.0 * x[i] + 0.5 * 3.0;
    check_close(dx[i], want_x, 1e-2, "dloss/dx[%d]", i);
    double vlo = __low2float(v[i]), vhi = __high2float(v[i]);
    check_close(__low2float(dv[i]), 2.0 * vlo, 1e-2, "dloss/dv[%d].x", i);
    check_close(__high2float(dv[i]), 2.0 * 2.0 * vhi, 1e-2, "dloss/dv[%d].y", i);
    check_close(__low2float(dw[i]), 2.0, 1e-2, "dloss/dw[%d].x", i);
    check_close(__high2float(dw[i]), 1.0, 1e-2, "dloss/dw[%d].y", i);
    check_close(__half2float(dy[i]), 3.0, 1e-2, "dloss/dy[%d]", i);
    t_want += want_x * tx[i] + 2.0 * vlo * __low2float(tv[i]) + 4.0 * vhi * __high2float(tv[i]) +
              2.0 * __low2float(tw[i]) + __high2float(tw[i]) + 3.0 * __half2float(ty[i]);
  }
  check_close(tangent, t_want, 2e-2, "tangent");
  device_free_all();
  return check_exit();
}
