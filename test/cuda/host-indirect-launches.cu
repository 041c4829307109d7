// Kernels reached other than by name at the launch, in differentiated host
// code, each checked against its analytic gradient:
//  e1 a function pointer chosen from a flag the request passes as a
//  constant; e2 a lambda that launches; e3 a std::function that launches;
//  e4 an array of kernels; e5 cudaLaunchKernel with the arguments in a
//  std::vector<void *>, one of them a float; e6 active weights copied into
//  __constant__ memory in two parts at offsets, a __device__ accumulator
//  zeroed and read back asynchronously (cudaMemcpyToSymbolAsync,
//  cudaMemcpyFromSymbolAsync); e7 early returns, one on cudaGetLastError;
//  e8 a virtual method that launches; e10 a function pointer chosen at run
//  time (both kernels, and forward mode); e11 a kernel handle passed in as
//  a parameter, launched by cudaLaunchKernel.
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
// CHECK-DAG: call {{.*}}ptr @__kinase_launch_augment(ptr {{.*}}@_Z19__device_stub__sq_kPfPKfif,
// CHECK-DAG: call {{.*}}ptr @__kinase_launch_augment(ptr {{.*}}@_Z21__device_stub__cube_kPfPKfif,
// CHECK-DAG: call {{.*}}ptr @__kinase_launch_augment(ptr {{.*}}@_Z21__device_stub__wsum_kPKfi,
// CHECK-DAG: call void @__kinase_launch_tangent(ptr {{.*}}@_Z21__device_stub__cube_kPfPKfif,
// CHECK-DAG: call {{.*}}ptr @__kinase_direct_launch_augment(ptr

#include <kinase.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>
#include <functional>
#include <cuda_runtime.h>
#include "cuda_check.h"

__constant__ float c_w[8];
__device__ float g_sum;

__global__ void sq_k(float *y, const float *x, int n, float s = 1.0f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = s * x[i] * x[i];
}
__global__ void cube_k(float *y, const float *x, int n, float s = 1.0f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = s * x[i] * x[i] * x[i];
}
__global__ void wsum_k(const float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&g_sum, y[i] * c_w[i % 8]);
}

static float finish(float *d_y, int n) {
  std::vector<float> h(n);
  cudaMemcpy(h.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost);
  float s = 0; for (int i = 0; i < n; i++) s += h[i] * (1 + i % 4);
  return s;
}

// E1: kernel chosen through a function pointer at run time, launched with <<<>>>
float e1(const float *d_x, float *d_y, int n, int cubic) {
  void (*k)(float *, const float *, int, float) = cubic ? cube_k : sq_k;
  k<<<(n + 63) / 64, 64>>>(d_y, d_x, n, 1.0f);
  return finish(d_y, n);
}
// E2: lambda that launches
float e2(const float *d_x, float *d_y, int n) {
  auto run = [&](float *o, const float *i) { sq_k<<<(n + 63) / 64, 64>>>(o, i, n); };
  run(d_y, d_x);
  return finish(d_y, n);
}
// E3: std::function that launches
float e3(const float *d_x, float *d_y, int n) {
  std::function<void(float *, const float *)> run = [n](float *o, const float *i) { cube_k<<<(n + 63) / 64, 64>>>(o, i, n); };
  run(d_y, d_x);
  return finish(d_y, n);
}
// E4: array of kernels
float e4(const float *d_x, float *d_y, float *d_t, int n) {
  void (*ks[2])(float *, const float *, int, float) = {sq_k, cube_k};
  ks[0]<<<(n + 63) / 64, 64>>>(d_t, d_x, n, 1.0f);
  ks[1]<<<(n + 63) / 64, 64>>>(d_y, d_t, n, 1.0f);
  return finish(d_y, n);
}
// E5: cudaLaunchKernel with a std::vector<void*> of args
float e5(const float *d_x, float *d_y, int n) {
  float s = 2.0f;
  std::vector<void *> args = {&d_y, &d_x, &n, &s};
  cudaLaunchKernel((const void *)sq_k, dim3((n + 63) / 64), dim3(64), args.data(), 0, 0);
  return finish(d_y, n);
}
// E6: symbols with offsets, async
float e6(const float *d_x, float *d_y, const float *w, int n) {
  cudaStream_t st; cudaStreamCreate(&st);
  float z = 0;
  cudaMemcpyToSymbolAsync(c_w, w, 4 * sizeof(float), 0, cudaMemcpyHostToDevice, st);
  cudaMemcpyToSymbolAsync(c_w, w + 4, 4 * sizeof(float), 4 * sizeof(float), cudaMemcpyHostToDevice, st);
  cudaMemcpyToSymbolAsync(g_sum, &z, sizeof(float), 0, cudaMemcpyHostToDevice, st);
  sq_k<<<(n + 63) / 64, 64, 0, st>>>(d_y, d_x, n);
  wsum_k<<<(n + 63) / 64, 64, 0, st>>>(d_y, n);
  float r;
  cudaMemcpyFromSymbolAsync(&r, g_sum, sizeof(float), 0, cudaMemcpyDeviceToHost, st);
  cudaStreamSynchronize(st);
  cudaStreamDestroy(st);
  return r;
}
// E7: early return
float e7(const float *d_x, float *d_y, int n) {
  if (n <= 0) return 0.f;
  sq_k<<<(n + 63) / 64, 64>>>(d_y, d_x, n);
  if (cudaGetLastError() != cudaSuccess) return -1.f;
  return finish(d_y, n);
}
// E8: virtual method launches
struct Op { virtual void apply(float *y, const float *x, int n) = 0; virtual ~Op() {} };
struct Sq : Op { void apply(float *y, const float *x, int n) override { sq_k<<<(n + 63) / 64, 64>>>(y, x, n); } };
float e8(const float *d_x, float *d_y, int n) {
  Sq op; Op *o = &op;
  o->apply(d_y, d_x, n);
  return finish(d_y, n);
}
// E10: a kernel chosen at run time through a function pointer
typedef void (*kern_t)(float *, const float *, int, float);
float e10(const float *d_x, float *d_y, int n, int cubic) {
  kern_t k = cubic ? cube_k : sq_k;
  k<<<(n + 63) / 64, 64>>>(d_y, d_x, n, 1.0f);
  return finish(d_y, n);
}
// E11: the kernel handle passed in, launched by cudaLaunchKernel
float e11(const float *d_x, float *d_y, int n, kern_t k) {
  float one = 1.0f;
  void *args[] = {&d_y, &d_x, &n, &one};
  cudaLaunchKernel((const void *)k, dim3((n + 63) / 64), dim3(64), args, 0, 0);
  return finish(d_y, n);
}

int main(int argc, char **argv) {
  (void)argv;
  require_device();
  volatile int cubic = argc > 0;
  const int n = 30;
  std::vector<float> x(n), w(8);
  for (int i = 0; i < n; i++) x[i] = 0.1f * i - 1.f;
  for (int i = 0; i < 8; i++) w[i] = 0.5f + 0.25f * i;
  float *d_x, *d_dx, *d_y, *d_dy, *d_t, *d_dt;
  cudaMalloc(&d_x, n * 4); cudaMalloc(&d_dx, n * 4); cudaMalloc(&d_y, n * 4); cudaMalloc(&d_dy, n * 4);
  cudaMalloc(&d_t, n * 4); cudaMalloc(&d_dt, n * 4);
  cudaMemcpy(d_x, x.data(), n * 4, cudaMemcpyHostToDevice);
  int fails = 0;
  auto grad = [&](const char *what, auto fill_want) {
    std::vector<float> dx(n); cudaMemcpy(dx.data(), d_dx, n * 4, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++) { double want = fill_want(i);
      if (fabs(dx[i] - want) > 1e-3 * fmax(1, fabs(want))) { fprintf(stderr, "FAIL %s[%d] %g %g\n", what, i, dx[i], want); fails++; } }
    cudaMemset(d_dx, 0, n * 4); cudaMemset(d_dy, 0, n * 4); cudaMemset(d_dt, 0, n * 4);
  };
  cudaMemset(d_dx, 0, n * 4); cudaMemset(d_dy, 0, n * 4); cudaMemset(d_dt, 0, n * 4);
  __enzyme_autodiff((void *)e1, enzyme_dup, d_x, d_dx, enzyme_dup, d_y, d_dy, enzyme_const, n, enzyme_const, 1);
  grad("e1", [&](int i) { return 3. * x[i] * x[i] * (1 + i % 4); });
  __enzyme_autodiff((void *)e2, enzyme_dup, d_x, d_dx, enzyme_dup, d_y, d_dy, enzyme_const, n);
  grad("e2", [&](int i) { return 2. * x[i] * (1 + i % 4); });
  __enzyme_autodiff((void *)e3, enzyme_dup, d_x, d_dx, enzyme_dup, d_y, d_dy, enzyme_const, n);
  grad("e3", [&](int i) { return 3. * x[i] * x[i] * (1 + i % 4); });
  __enzyme_autodiff((void *)e4, enzyme_dup, d_x, d_dx, enzyme_dup, d_y, d_dy, enzyme_dup, d_t, d_dt, enzyme_const, n);
  grad("e4", [&](int i) { return 6. * pow(x[i], 5) * (1 + i % 4); });
  __enzyme_autodiff((void *)e5, enzyme_dup, d_x, d_dx, enzyme_dup, d_y, d_dy, enzyme_const, n);
  grad("e5", [&](int i) { return 4. * x[i] * (1 + i % 4); });
  std::vector<float> dw(8, 0.f);
  __enzyme_autodiff((void *)e6, enzyme_dup, d_x, d_dx, enzyme_dup, d_y, d_dy, enzyme_dup, w.data(), dw.data(), enzyme_const, n);
  grad("e6", [&](int i) { return 2. * x[i] * w[i % 8]; });
  { double g[8] = {0}; for (int i = 0; i < n; i++) g[i % 8] += x[i] * x[i];
    for (int k = 0; k < 8; k++) if (fabs(dw[k] - g[k]) > 1e-3 * fmax(1, fabs(g[k]))) { fprintf(stderr, "FAIL e6 dw[%d] %g %g\n", k, dw[k], g[k]); fails++; } }
  __enzyme_autodiff((void *)e7, enzyme_dup, d_x, d_dx, enzyme_dup, d_y, d_dy, enzyme_const, n);
  grad("e7", [&](int i) { return 2. * x[i] * (1 + i % 4); });
  __enzyme_autodiff((void *)e8, enzyme_dup, d_x, d_dx, enzyme_dup, d_y, d_dy, enzyme_const, n);
  grad("e8", [&](int i) { return 2. * x[i] * (1 + i % 4); });
  __enzyme_autodiff((void *)e10, enzyme_dup, d_x, d_dx, enzyme_dup, d_y, d_dy, enzyme_const, n, enzyme_const, (int)cubic);
  grad("e10", [&](int i) { return 3. * x[i] * x[i] * (1 + i % 4); });
  __enzyme_autodiff((void *)e10, enzyme_dup, d_x, d_dx, enzyme_dup, d_y, d_dy, enzyme_const, n, enzyme_const, (int)!cubic);
  grad("e10 square", [&](int i) { return 2. * x[i] * (1 + i % 4); });
  {
    float *d_t2;
    cudaMalloc(&d_t2, n * 4);
    cudaMemcpy(d_t2, x.data(), n * 4, cudaMemcpyHostToDevice);
    float tangent = __enzyme_fwddiff((void *)e10, enzyme_dup, d_x, d_t2, enzyme_dup, d_y, d_dy, enzyme_const, n, enzyme_const, (int)cubic);
    double want = 0;
    for (int i = 0; i < n; i++) want += 3. * x[i] * x[i] * x[i] * (1 + i % 4);
    if (fabs(tangent - want) > 1e-3 * fmax(1, fabs(want))) { fprintf(stderr, "FAIL e10 forward %g %g\n", tangent, want); fails++; }
    cudaFree(d_t2);
    cudaMemset(d_dy, 0, n * 4); // it held y's tangent, which the next gradient would add in
  }
  __enzyme_autodiff((void *)e11, enzyme_dup, d_x, d_dx, enzyme_dup, d_y, d_dy, enzyme_const, n, enzyme_const, cubic ? cube_k : sq_k);
  grad("e11", [&](int i) { return 3. * x[i] * x[i] * (1 + i % 4); });
  if (!fails) printf("PASS\n");
  return fails != 0;
}
