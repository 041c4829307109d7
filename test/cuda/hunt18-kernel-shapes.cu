// Kernel shapes CUDA users write, launched from differentiated host
// functions, checked against analytic gradients:
// - a block sum templated on T over `extern __shared__` bytes cast to T*,
//   instantiated for float and double;
// - a 3-D grid (blockDim.z = 2) with `const __restrict__` and __ldg;
// - `#pragma unroll` loops over a local array of 4 floats, an assert and a
//   printf in the kernel, a recursive __device__ polynomial and a chain of
//   three helpers;
// - a local array of 8 floats indexed by a loop whose bound is a parameter;
// and a device-side request on a __device__ function calling the recursive
// polynomial and the helper chain, with a printf.
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
// CHECK-NOT: __kinase_kwhy__Z{{[0-9]+(tsum|grid3|regs|regdyn)}}
// CHECK: .entry __kinase_krev_dn__Z4tsumIdEvPKT_PS0_i

#include <assert.h>
#include <kinase.h>
#include <math.h>
#include <stdio.h>
#include <vector>
#include "cuda_check.h"

enum { N = 1000, BS = 64 };

template <class T> __global__ void tsum(const T *x, T *out, int n) {
  extern __shared__ __align__(sizeof(T)) unsigned char raw[];
  T *s = reinterpret_cast<T *>(raw);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? x[i] * x[i] * x[i] : T(0);
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, s[0]);
}
template <class T> T h_tsum(const T *d_x, int n) {
  T *o, r; cudaMalloc(&o, sizeof(T)); cudaMemset(o, 0, sizeof(T));
  tsum<T><<<(n + BS - 1) / BS, BS, BS * sizeof(T)>>>(d_x, o, n);
  cudaMemcpy(&r, o, sizeof(T), cudaMemcpyDeviceToHost); cudaFree(o); return r;
}

// 3-D grid
__global__ void grid3(const float *__restrict__ x, float *__restrict__ y, int nx, int ny, int nz) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y,
      k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i >= nx || j >= ny || k >= nz) return;
  int id = (k * ny + j) * nx + i;
  y[id] = __ldg(&x[id]) * (1.f + k) + sinf(x[id]);
}
float h_grid3(const float *d_x, int nx, int ny, int nz) {
  float *y; cudaMalloc(&y, nx * ny * nz * 4);
  dim3 b(8, 4, 2), g((nx + 7) / 8, (ny + 3) / 4, (nz + 1) / 2);
  grid3<<<g, b>>>(d_x, y, nx, ny, nz);
  std::vector<float> h(nx * ny * nz);
  cudaMemcpy(h.data(), y, h.size() * 4, cudaMemcpyDeviceToHost); cudaFree(y);
  float s = 0; for (size_t q = 0; q < h.size(); q++) s += h[q] * h[q]; return s;
}

// pragma unroll + register arrays + recursion + deep helpers + printf/assert
__device__ float poly(float x, int d) { return d == 0 ? 1.f : 1.f + x * poly(x, d - 1) / d; }
__device__ float h3(float v) { return v * v; }
__device__ float h2(float v) { return h3(v) + v; }
__device__ float h1(float v) { return h2(v) * 0.5f; }
__global__ void regs(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float a[4];
#pragma unroll
    for (int k = 0; k < 4; k++) a[k] = x[(i + k) % n] * (k + 1);
    float s = 0;
#pragma unroll
    for (int k = 0; k < 4; k++) s += a[k] * a[(k + 1) & 3];
    assert(s == s);
    if (i == 0) printf("regs: s=%f\n", s);
    y[i] = s + poly(x[i], 5) + h1(x[i]);
  }
}
float h_regs(const float *d_x, int n) {
  float *y; cudaMalloc(&y, n * 4);
  regs<<<(n + BS - 1) / BS, BS>>>(d_x, y, n);
  std::vector<float> h(n); cudaMemcpy(h.data(), y, n * 4, cudaMemcpyDeviceToHost); cudaFree(y);
  float s = 0; for (int q = 0; q < n; q++) s += h[q]; return s;
}
// register array indexed by runtime counter
__global__ void regdyn(const float *x, float *y, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a[8];
  for (int k = 0; k < 8; k++) a[k] = x[(i * 3 + k) % n];
  float s = 0;
  for (int k = 0; k < m; k++) s += a[k] * a[(k + 3) % m];
  y[i] = s;
}
float h_regdyn(const float *d_x, int n) {
  float *y; cudaMalloc(&y, n * 4);
  regdyn<<<(n + BS - 1) / BS, BS>>>(d_x, y, n, 8);
  std::vector<float> h(n); cudaMemcpy(h.data(), y, n * 4, cudaMemcpyDeviceToHost); cudaFree(y);
  float s = 0; for (int q = 0; q < n; q++) s += h[q] * (q % 3); return s;
}
// device-side request on a recursive function with printf
__device__ float dev_f(const float *x, int i) {
  float v = poly(x[i], 4) * h1(x[i]);
  if (v != v) printf("nan at %d\n", i);
  return v;
}
__global__ void dev_req(const float *x, float *dx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) __enzyme_autodiff((void *)dev_f, enzyme_dup, x, dx, enzyme_const, i);
}

static double dpoly(double x, int d, double *dp) {
  if (d == 0) { *dp = 0; return 1; }
  double q; double p = dpoly(x, d - 1, &q);
  *dp = (p + x * q) / d; return 1 + x * p / d;
}
int main() {
  require_device();
  std::vector<float> x(N), dx(N);
  std::vector<double> xd(N), dxd(N);
  for (int i = 0; i < N; i++) { x[i] = 0.8f * sinf(0.37f * i); xd[i] = x[i]; }
  float *d_x = to_device(x), *d_dx = device_alloc<float>(N);
  double *d_xd = to_device(xd), *d_dxd = device_alloc<double>(N);
  cudaMemset(d_dx, 0, N * 4);
  __enzyme_autodiff((void *)h_tsum<float>, enzyme_dup, d_x, d_dx, enzyme_const, N);
  from_device(dx, d_dx);
  for (int i = 0; i < N; i++) check_close(dx[i], 3 * x[i] * x[i], 1e-5, "tsum<float> dx[%d]", i);
  cudaMemset(d_dxd, 0, N * 8);
  __enzyme_autodiff((void *)h_tsum<double>, enzyme_dup, d_xd, d_dxd, enzyme_const, N);
  from_device(dxd, d_dxd);
  for (int i = 0; i < N; i++) check_close(dxd[i], 3 * xd[i] * xd[i], 1e-12, "tsum<double> dx[%d]", i);
  {
    int nx = 10, ny = 10, nz = 10; // 1000
    cudaMemset(d_dx, 0, N * 4);
    __enzyme_autodiff((void *)h_grid3, enzyme_dup, d_x, d_dx, enzyme_const, nx, enzyme_const, ny, enzyme_const, nz);
    from_device(dx, d_dx);
    for (int i = 0; i < N; i++) {
      int k = i / 100; double c = 1 + k, y = x[i] * c + sin((double)x[i]);
      check_close(dx[i], 2 * y * (c + cos((double)x[i])), 1e-4, "grid3 dx[%d]", i);
    }
  }
  {
    cudaMemset(d_dx, 0, N * 4);
    __enzyme_autodiff((void *)h_regs, enzyme_dup, d_x, d_dx, enzyme_const, N);
    from_device(dx, d_dx);
    std::vector<double> want(N, 0.0);
    for (int i = 0; i < N; i++) {
      for (int k = 0; k < 4; k++) {
        int k2 = (k + 1) & 3;
        double ak = x[(i + k) % N] * (k + 1.0), ak2 = x[(i + k2) % N] * (k2 + 1.0);
        want[(i + k) % N] += (k + 1.0) * ak2;
        want[(i + k2) % N] += (k2 + 1.0) * ak;
      }
      double dp; dpoly(x[i], 5, &dp);
      want[i] += dp + (2 * x[i] + 1) * 0.5;
    }
    for (int i = 0; i < N; i++) check_close(dx[i], want[i], 1e-4, "regs dx[%d]", i);
  }
  {
    cudaMemset(d_dx, 0, N * 4);
    __enzyme_autodiff((void *)h_regdyn, enzyme_dup, d_x, d_dx, enzyme_const, N);
    from_device(dx, d_dx);
    std::vector<double> want(N, 0.0);
    for (int i = 0; i < N; i++)
      for (int k = 0; k < 8; k++) {
        int a = (i * 3 + k) % N, b = (i * 3 + (k + 3) % 8) % N;
        want[a] += (i % 3) * x[b]; want[b] += (i % 3) * x[a];
      }
    for (int i = 0; i < N; i++) check_close(dx[i], want[i], 1e-4, "regdyn dx[%d]", i);
  }
  {
    cudaMemset(d_dx, 0, N * 4);
    dev_req<<<(N + BS - 1) / BS, BS>>>(d_x, d_dx, N);
    check_kernel("dev_req");
    from_device(dx, d_dx);
    for (int i = 0; i < N; i++) {
      double dp, p = dpoly(x[i], 4, &dp), h = 0.5 * (x[i] * (double)x[i] + x[i]), dh = x[i] + 0.5;
      check_close(dx[i], dp * h + p * dh, 1e-4, "dev_req dx[%d]", i);
    }
  }
  device_free_all();
  return check_exit();
}
