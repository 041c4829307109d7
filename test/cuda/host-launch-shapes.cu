// Host code launching kernels the ways CUDA programs do, differentiated:
//  - f_launch_ptr: a kernel in an anonymous namespace with __launch_bounds__,
//    its block size from cudaOccupancyMaxPotentialBlockSize, launched by
//    cudaLaunchKernel through a function pointer with a void* argument array
//    holding an enzyme_out float (alpha); every call checked by a CUDA_CHECK
//    macro that exits; cudaPeekAtLastError, cudaDeviceSynchronize; the result
//    copied into pinned memory (cudaMallocHost); analytic, both modes;
//  - f_pingpong: a static kernel launched through a template wrapper
//    launch(kernel, grid, block, stream, args...) from a helper taking the
//    buffers by reference, which std::swaps them after each step; two
//    streams ordered by cudaStreamWaitEvent, a memsetAsync on the second; a
//    CUDA_THROW macro that throws; central differences;
//  - f_vec4: an extern "C" kernel taking float4 pointers and a float4 by
//    value built from active host weights; analytic;
//  - f_dbl2: double2 data and a double2 by value, then cudaMemset of the
//    second half of the output (an offset pointer); analytic, both modes.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=DEV --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// DEV-NOT: __kinase_kwhy_
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_
// CHECK-DAG: call {{.*}}ptr @__kinase_direct_launch_augment(ptr {{.*}}@_ZN12_GLOBAL__N_122__device_stub__scale_kEPfPKffi,
// CHECK-DAG: call void @__kinase_direct_launch_tangent(ptr {{.*}}@_ZN12_GLOBAL__N_122__device_stub__scale_kEPfPKffi,
// CHECK-DAG: call {{.*}}ptr @__kinase_launch_augment(ptr {{.*}}@_ZL21__device_stub__step_kPfPKfi,
// CHECK-DAG: call {{.*}}ptr @__kinase_launch_augment(ptr {{.*}}@__device_stub__vec4_k,
// CHECK-DAG: call {{.*}}ptr @__kinase_launch_augment(ptr {{.*}}@_Z21__device_stub__dbl2_kPdPK7double2S0_i,
// CHECK-DAG: call void @__kinase_launch_tangent(ptr {{.*}}@_Z21__device_stub__dbl2_kPdPK7double2S0_i,

#include <kinase.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>
#include <utility>
#include <stdexcept>
#include <cuda_runtime.h>
#include "cuda_check.h"

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)
#define CUDA_THROW(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) \
  throw std::runtime_error(cudaGetErrorString(e_)); } while (0)

namespace {
__global__ void __launch_bounds__(128) scale_k(float *out, const float *in, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = alpha * in[i] * in[i];
}
}
static __global__ void step_k(float *dst, const float *src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float l = i > 0 ? src[i - 1] : 0.f, r = i + 1 < n ? src[i + 1] : 0.f;
    dst[i] = 0.5f * src[i] + 0.25f * (l + r) + 0.1f * src[i] * src[i];
  }
}
extern "C" __global__ void vec4_k(float4 *out, const float4 *in, float4 w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float4 v = in[i];
    out[i] = make_float4(v.x * w.x, v.y * w.y, v.z * w.z, v.w * w.w); }
}
__global__ void dbl2_k(double *out, const double2 *in, double2 c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i].x * c.x + in[i].y * in[i].y * c.y;
}
__global__ void sum_k(float *acc, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(acc, x[i]);
}

template <typename K, typename... A>
void launch(K kernel, dim3 g, dim3 b, cudaStream_t s, A... args) {
  kernel<<<g, b, 0, s>>>(args...);
  CUDA_CHECK(cudaGetLastError());
}

// 1: cudaLaunchKernel through a function pointer, alpha enzyme_out, occupancy sizing
float f_launch_ptr(const float *x, float alpha, int n) {
  float *d_in, *d_out;
  CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_in, x, n * sizeof(float), cudaMemcpyHostToDevice));
  int minGrid = 0, block = 0;
  CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&minGrid, &block, scale_k, 0, 0));
  if (block > 128) block = 128;
  void (*kp)(float *, const float *, float, int) = scale_k;
  void *args[] = {&d_out, &d_in, &alpha, &n};
  dim3 grid((n + block - 1) / block), blk(block);
  CUDA_CHECK(cudaLaunchKernel((const void *)kp, grid, blk, args, 0, 0));
  CUDA_CHECK(cudaPeekAtLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  float *h;
  CUDA_CHECK(cudaMallocHost(&h, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(h, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
  float s = 0;
  for (int i = 0; i < n; i++) s += h[i] * (i + 1);
  cudaFreeHost(h); cudaFree(d_in); cudaFree(d_out);
  return s;
}

// 2: ping-pong std::swap, template launch wrapper, two streams with event
static void advance(float *&a, float *&b, int n, int steps, cudaStream_t s) {
  for (int t = 0; t < steps; t++) {
    launch(step_k, dim3((n + 63) / 64), dim3(64), s, b, (const float *)a, n);
    std::swap(a, b);
  }
}
float f_pingpong(const float *x, int n, int steps) {
  cudaStream_t s1, s2; cudaEvent_t ev;
  CUDA_THROW(cudaStreamCreate(&s1)); CUDA_THROW(cudaStreamCreate(&s2));
  CUDA_THROW(cudaEventCreate(&ev));
  float *a, *b, *acc;
  CUDA_THROW(cudaMalloc(&a, n * sizeof(float)));
  CUDA_THROW(cudaMalloc(&b, n * sizeof(float)));
  CUDA_THROW(cudaMalloc(&acc, sizeof(float)));
  CUDA_THROW(cudaMemsetAsync(acc, 0, sizeof(float), s2));
  CUDA_THROW(cudaMemcpyAsync(a, x, n * sizeof(float), cudaMemcpyHostToDevice, s1));
  advance(a, b, n, steps, s1);
  CUDA_THROW(cudaEventRecord(ev, s1));
  CUDA_THROW(cudaStreamWaitEvent(s2, ev, 0));
  sum_k<<<(n + 63) / 64, 64, 0, s2>>>(acc, a, n);
  float r;
  CUDA_THROW(cudaMemcpyAsync(&r, acc, sizeof(float), cudaMemcpyDeviceToHost, s2));
  CUDA_THROW(cudaStreamSynchronize(s2));
  cudaFree(a); cudaFree(b); cudaFree(acc);
  cudaEventDestroy(ev); cudaStreamDestroy(s1); cudaStreamDestroy(s2);
  return r;
}

// 3: float4 by value (weights active), double2 by value, partial memset
float f_vec4(const float *x, const float *w, int n4) {
  float4 wv = make_float4(w[0], w[1], w[2], w[3]);
  float4 *d_in, *d_out;
  cudaMalloc(&d_in, n4 * sizeof(float4)); cudaMalloc(&d_out, n4 * sizeof(float4));
  cudaMemcpy(d_in, x, n4 * sizeof(float4), cudaMemcpyHostToDevice);
  vec4_k<<<1, 64>>>(d_out, d_in, wv, n4);
  std::vector<float> h(4 * n4);
  cudaMemcpy(h.data(), d_out, n4 * sizeof(float4), cudaMemcpyDeviceToHost);
  float s = 0;
  for (size_t i = 0; i < h.size(); i++) s += h[i] * h[i];
  cudaFree(d_in); cudaFree(d_out);
  return s;
}
double f_dbl2(const double *x, double c0, double c1, int n) {
  double2 c = make_double2(c0, c1);
  double2 *d_in; double *d_out;
  cudaMalloc(&d_in, n * sizeof(double2)); cudaMalloc(&d_out, n * sizeof(double));
  cudaMemcpy(d_in, x, n * sizeof(double2), cudaMemcpyHostToDevice);
  dbl2_k<<<1, 64>>>(d_out, d_in, c, n);
  cudaMemset(d_out + n / 2, 0, (n - n / 2) * sizeof(double)); // zero the second half
  std::vector<double> h(n);
  cudaMemcpy(h.data(), d_out, n * sizeof(double), cudaMemcpyDeviceToHost);
  double s = 0;
  for (double v : h) s += v;
  cudaFree(d_in); cudaFree(d_out);
  return s;
}

/* Relative tolerance 1e-3 (of max(|want|, 1)): float sums on the device. */
static void check(double got, double want, const char *what, int i) {
  check_close(got, want, 1e-3, "%s[%d]", what, i);
}

int main() {
  require_device();
  const int n = 37;
  std::vector<float> x(n), dx(n);
  for (int i = 0; i < n; i++) x[i] = 0.1f + 0.03f * i;
  float alpha = 1.5f;
  // 1
  std::fill(dx.begin(), dx.end(), 0.f);
  float da = __enzyme_autodiff((void *)f_launch_ptr, enzyme_dup, x.data(), dx.data(), enzyme_out, alpha, enzyme_const, n);
  { double dA = 0; for (int i = 0; i < n; i++) { check(dx[i], 2 * alpha * x[i] * (i + 1), "launch_ptr dx", i); dA += x[i] * x[i] * (i + 1); }
    check(da, dA, "launch_ptr dalpha", 0); }
  float t = __enzyme_fwddiff((void *)f_launch_ptr, enzyme_const, x.data(), enzyme_dup, alpha, 1.0f, enzyme_const, n);
  { double dA = 0; for (int i = 0; i < n; i++) dA += x[i] * x[i] * (i + 1); check(t, dA, "launch_ptr fwd", 0); }
  // 2: central differences
  int steps = 3;
  std::fill(dx.begin(), dx.end(), 0.f);
  __enzyme_autodiff((void *)f_pingpong, enzyme_dup, x.data(), dx.data(), enzyme_const, n, enzyme_const, steps);
  for (int i = 0; i < n; i += 5) {
    std::vector<float> xp = x, xm = x; float h = 1e-2f; xp[i] += h; xm[i] -= h;
    double fd = (f_pingpong(xp.data(), n, steps) - f_pingpong(xm.data(), n, steps)) / (2 * h);
    check(dx[i], fd, "pingpong", i);
  }
  // 3
  const int n4 = 8; std::vector<float> x4(4 * n4), dx4(4 * n4, 0.f), w = {0.5f, -1.f, 2.f, 0.25f}, dw(4, 0.f);
  for (int i = 0; i < 4 * n4; i++) x4[i] = 0.2f + 0.05f * i;
  __enzyme_autodiff((void *)f_vec4, enzyme_dup, x4.data(), dx4.data(), enzyme_dup, w.data(), dw.data(), enzyme_const, n4);
  { double g[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4 * n4; i++) { float y = x4[i] * w[i % 4]; check(dx4[i], 2 * y * w[i % 4], "vec4 dx", i); g[i % 4] += 2 * y * x4[i]; }
    for (int k = 0; k < 4; k++) check(dw[k], g[k], "vec4 dw", k); }
  const int nd = 10; std::vector<double> xd(2 * nd), dxd(2 * nd, 0.0);
  for (int i = 0; i < 2 * nd; i++) xd[i] = 0.3 + 0.1 * i;
  double c0 = 1.25, c1 = -0.5;
  double dc0 = __enzyme_autodiff((void *)f_dbl2, enzyme_dup, xd.data(), dxd.data(), enzyme_out, c0, enzyme_const, c1, enzyme_const, nd);
  { double g = 0; for (int i = 0; i < nd; i++) { bool live = i < nd / 2;
      check(dxd[2*i], live ? c0 : 0, "dbl2 dx", 2*i); check(dxd[2*i+1], live ? 2*xd[2*i+1]*c1 : 0, "dbl2 dy", 2*i+1);
      if (live) g += xd[2*i]; }
    check(dc0, g, "dbl2 dc0", 0); }
  double tc = __enzyme_fwddiff((void *)f_dbl2, enzyme_const, xd.data(), enzyme_dup, c0, 1.0, enzyme_const, c1, enzyme_const, nd);
  { double g = 0; for (int i = 0; i < nd / 2; i++) g += xd[2*i]; check(tc, g, "dbl2 fwd", 0); }
  return check_exit();
}
