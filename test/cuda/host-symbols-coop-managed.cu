// Host code around kernels, differentiated, as CUDA programs write it:
//  - f_symbols: active coefficients (enzyme_dup host array) copied into
//    __constant__ memory with cudaMemcpyToSymbol, a __device__ accumulator
//    zeroed by cudaMemcpyToSymbol and read back with cudaMemcpyFromSymbol,
//    events timing the two kernels (cudaEventElapsedTime); analytic, both
//    modes;
//  - f_coop: cudaLaunchCooperativeKernel of a kernel waiting at
//    cg::this_grid().sync() between writing a scratch array and reading a
//    neighbour's element of it; analytic;
//  - f_managed: managed memory filled on the host, a struct by value holding
//    pointers and floats (alpha enzyme_out), the result read on the host
//    into cudaHostAlloc memory; analytic;
//  - f_pitch: cudaMallocPitch, cudaMemcpy2D of a host matrix in, a kernel
//    indexing rows by pitch, cudaMemcpy2DAsync out into a std::vector;
//    analytic.
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
// CHECK-DAG: call {{.*}}ptr @__kinase_direct_cooperative_augment(ptr {{.*}}@_Z21__device_stub__coop_kPfS_PKfi,
// CHECK-DAG: call {{.*}}ptr @__kinase_launch_augment(ptr {{.*}}@_Z23__device_stub__affine_k6Params,
// CHECK-DAG: call void @__kinase_copy2d_reverse(
// CHECK-DAG: call {{.*}}@__kinase_symbol_shadow(

#include <kinase.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include "cuda_check.h"
namespace cg = cooperative_groups;
#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)

__constant__ float c_coef[4];
__device__ float g_acc;

__global__ void poly_k(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float v = x[i]; y[i] = c_coef[0] + v * (c_coef[1] + v * (c_coef[2] + v * c_coef[3])); }
}
__global__ void acc_k(const float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&g_acc, y[i] * y[i]);
}
// 1: coefficients active through cudaMemcpyToSymbol; loss through cudaMemcpyFromSymbol; events timing
float f_symbols(const float *x, const float *coef, int n) {
  float *d_x, *d_y;
  CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_y, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_x, x, n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpyToSymbol(c_coef, coef, 4 * sizeof(float)));
  float zero = 0.f;
  CUDA_CHECK(cudaMemcpyToSymbol(g_acc, &zero, sizeof(float)));
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  cudaEventRecord(a);
  poly_k<<<(n + 127) / 128, 128>>>(d_y, d_x, n);
  acc_k<<<(n + 127) / 128, 128>>>(d_y, n);
  cudaEventRecord(b); cudaEventSynchronize(b);
  float ms = 0; cudaEventElapsedTime(&ms, a, b);
  if (ms < 0) printf("odd\n");
  float r = 0;
  CUDA_CHECK(cudaMemcpyFromSymbol(&r, g_acc, sizeof(float)));
  cudaFree(d_x); cudaFree(d_y); cudaEventDestroy(a); cudaEventDestroy(b);
  return r;
}

// 2: cooperative kernel with grid sync
__global__ void coop_k(float *out, float *tmp, const float *x, int n) {
  cg::grid_group g = cg::this_grid();
  int i = g.thread_rank();
  if (i < n) tmp[i] = x[i] * x[i];
  g.sync();
  if (i < n) out[i] = tmp[i] + (i + 1 < n ? tmp[i + 1] : 0.f);
}
float f_coop(const float *x, int n) {
  float *d_x, *d_t, *d_o;
  cudaMalloc(&d_x, n * sizeof(float)); cudaMalloc(&d_t, n * sizeof(float)); cudaMalloc(&d_o, n * sizeof(float));
  cudaMemcpy(d_x, x, n * sizeof(float), cudaMemcpyHostToDevice);
  void *args[] = {&d_o, &d_t, &d_x, &n};
  CUDA_CHECK(cudaLaunchCooperativeKernel((void *)coop_k, dim3((n + 63) / 64), dim3(64), args, 0, 0));
  std::vector<float> h(n);
  cudaMemcpy(h.data(), d_o, n * sizeof(float), cudaMemcpyDeviceToHost);
  float s = 0; for (int i = 0; i < n; i++) s += (i % 3 + 1) * h[i];
  cudaFree(d_x); cudaFree(d_t); cudaFree(d_o);
  return s;
}

// 3: struct by value with pointers and floats, managed memory touched on both sides, cudaHostAlloc
struct Params { const float *x; float *y; float a; float b; int n; };
__global__ void affine_k(Params p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n) p.y[i] = p.a * p.x[i] * p.x[i] + p.b;
}
float f_managed(const float *x, float a, float b, int n) {
  float *m_x, *m_y, *h;
  cudaMallocManaged(&m_x, n * sizeof(float));
  cudaMallocManaged(&m_y, n * sizeof(float));
  for (int i = 0; i < n; i++) m_x[i] = 2.f * x[i];
  Params p; p.x = m_x; p.y = m_y; p.a = a; p.b = b; p.n = n;
  affine_k<<<(n + 31) / 32, 32>>>(p);
  cudaDeviceSynchronize();
  cudaHostAlloc(&h, n * sizeof(float), cudaHostAllocDefault);
  for (int i = 0; i < n; i++) h[i] = m_y[i] * m_y[i];
  float s = 0; for (int i = 0; i < n; i++) s += h[i];
  cudaFree(m_x); cudaFree(m_y); cudaFreeHost(h);
  return s;
}

// 4: 2-D pitched copy of a host matrix
__global__ void rows_k(float *o, size_t opitch, const float *m, size_t pitch, int w, int hgt) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
  if (c < w && r < hgt) {
    const float *row = (const float *)((const char *)m + r * pitch);
    float *orow = (float *)((char *)o + r * opitch);
    orow[c] = row[c] * row[c] * (r + 1);
  }
}
float f_pitch(const float *m, int w, int hgt) {
  float *d_m, *d_o; size_t pitch, opitch;
  cudaMallocPitch(&d_m, &pitch, w * sizeof(float), hgt);
  cudaMallocPitch(&d_o, &opitch, w * sizeof(float), hgt);
  cudaMemcpy2D(d_m, pitch, m, w * sizeof(float), w * sizeof(float), hgt, cudaMemcpyHostToDevice);
  rows_k<<<dim3(1, hgt), 32>>>(d_o, opitch, d_m, pitch, w, hgt);
  std::vector<float> h(w * hgt);
  cudaStream_t s; cudaStreamCreate(&s);
  cudaMemcpy2DAsync(h.data(), w * sizeof(float), d_o, opitch, w * sizeof(float), hgt, cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  float t = 0; for (float v : h) t += v;
  cudaFree(d_m); cudaFree(d_o); cudaStreamDestroy(s);
  return t;
}

/* Relative tolerance 1e-3 (of max(|want|, 1)): float sums on the device. */
static void check(double got, double want, const char *what, int i) {
  check_close(got, want, 1e-3, "%s[%d]", what, i);
}

int main() {
  require_device();
  const int n = 50;
  std::vector<float> x(n), dx(n, 0.f);
  for (int i = 0; i < n; i++) x[i] = -0.5f + 0.02f * i;
  std::vector<float> coef = {0.3f, -0.7f, 0.5f, 0.2f}, dcoef(4, 0.f);
  __enzyme_autodiff((void *)f_symbols, enzyme_dup, x.data(), dx.data(), enzyme_dup, coef.data(), dcoef.data(), enzyme_const, n);
  { double g[4] = {0,0,0,0};
    for (int i = 0; i < n; i++) { float v = x[i]; float y = coef[0] + v*(coef[1] + v*(coef[2] + v*coef[3]));
      check(dx[i], 2*y*(coef[1] + 2*coef[2]*v + 3*coef[3]*v*v), "symbols dx", i);
      float p = 1; for (int k = 0; k < 4; k++) { g[k] += 2*y*p; p *= v; } }
    for (int k = 0; k < 4; k++) check(dcoef[k], g[k], "symbols dcoef", k); }
  { std::vector<float> t(4, 0.f); t[2] = 1.f;
    float fw = __enzyme_fwddiff((void *)f_symbols, enzyme_const, x.data(), enzyme_dup, coef.data(), t.data(), enzyme_const, n);
    double g = 0; for (int i = 0; i < n; i++) { float v = x[i]; float y = coef[0] + v*(coef[1] + v*(coef[2] + v*coef[3])); g += 2*y*v*v; }
    check(fw, g, "symbols fwd", 0); }
  std::fill(dx.begin(), dx.end(), 0.f);
  __enzyme_autodiff((void *)f_coop, enzyme_dup, x.data(), dx.data(), enzyme_const, n);
  for (int i = 0; i < n; i++) { double w = (i % 3 + 1) + (i > 0 ? ((i - 1) % 3 + 1) : 0); check(dx[i], 2 * x[i] * w, "coop", i); }
  std::fill(dx.begin(), dx.end(), 0.f);
  float a = 0.8f, b = -0.3f;
  double da = __enzyme_autodiff((void *)f_managed, enzyme_dup, x.data(), dx.data(), enzyme_out, a, enzyme_const, b, enzyme_const, n);
  { double g = 0; for (int i = 0; i < n; i++) { float u = 2*x[i]; float y = a*u*u + b; check(dx[i], 2*y*a*2*u*2, "managed dx", i); g += 2*y*u*u; }
    check(da, g, "managed da", 0); }
  const int w = 7, hg = 5; std::vector<float> m(w * hg), dm(w * hg, 0.f);
  for (int i = 0; i < w * hg; i++) m[i] = 0.1f * i - 1.f;
  __enzyme_autodiff((void *)f_pitch, enzyme_dup, m.data(), dm.data(), enzyme_const, w, enzyme_const, hg);
  for (int i = 0; i < w * hg; i++) check(dm[i], 2 * m[i] * (i / w + 1), "pitch", i);
  return check_exit();
}
