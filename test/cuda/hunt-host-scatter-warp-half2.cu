// More kernels as CUDA programmers write them, launched from differentiated
// host functions, checked against analytic gradients:
//   hist:      grid-stride scatter, atomicAdd(&h[bin[i]], v_i^2) at
//              data-dependent bins: dv_i = 2 v_i dh[bin_i]
//   allreduce: a butterfly with __shfl_xor_sync in double, y_i = S x_i with
//              S the warp's sum of x_j^2: dx_i = S w_i + 2 x_i sum_warp w_j x_j
//   cgsum:     cooperative groups: cg::reduce(tile, sin x_i, cg::plus) per
//              tiled_partition<32>, then atomicAdd: dx_i = cos x_i dout
//   grid3:     grid-stride loops on a 3-D grid, y = x^2 (1 + z): dx = 2 x (1 + z) w
//   fma2:      half2 arithmetic, c = __hfma2(a, b, __hmul2(a, a)):
//              da = (b + 2 a) w, db = a w, in half precision
//   tsum:      template <typename T, int BLOCK>, float and double: a shared
//              tree sum of x^2 with #pragma unroll: dx = 2 x dout
// Forward mode for allreduce and grid3.
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
// CHECK-NOT: __kinase_kwhy_
// CHECK-DAG: .entry __kinase_krev_{{[dc]+}}n__Z4histPKfPKiPfi(
// CHECK-DAG: .entry __kinase_krev_dn__Z9allreducePKdPdi(
// CHECK-DAG: .entry __kinase_krev_dn__Z5cgsumPKfPfi(
// CHECK-DAG: .entry __kinase_krev_dn__Z5grid3PKfPfiii(
// CHECK-DAG: .entry __kinase_krev_{{[dc]+}}n__Z4fma2PK7__half2S1_PS_i(
// CHECK-DAG: .entry __kinase_krev_dn__Z4tsumIfLi128EEvPKT_PS0_i(
// CHECK-DAG: .entry __kinase_krev_dn__Z4tsumIdLi128EEvPKT_PS0_i(

#include <kinase.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_fp16.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

namespace cg = cooperative_groups;

__global__ void hist(const float *v, const int *bin, float *h, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&h[bin[i]], v[i] * v[i]);
}

void run_hist(const float *v, const int *bin, float *h, int n) { hist<<<4, 128>>>(v, bin, h, n); }

__global__ void allreduce(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double v = i < n ? x[i] * x[i] : 0.0;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffff, v, o);
  if (i < n)
    y[i] = v * x[i];
}

void run_allreduce(const double *x, double *y, int n) { allreduce<<<(n + 127) / 128, 128>>>(x, y, n); }

__global__ void cgsum(const float *x, float *out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  int i = block.group_index().x * block.size() + block.thread_rank();
  float v = i < n ? sinf(x[i]) : 0.0f;
  float s = cg::reduce(tile, v, cg::plus<float>());
  if (tile.thread_rank() == 0)
    atomicAdd(out, s);
}

void run_cgsum(const float *x, float *out, int n) { cgsum<<<(n + 127) / 128, 128>>>(x, out, n); }

__global__ void grid3(const float *x, float *y, int nx, int ny, int nz) {
  for (int z = blockIdx.z * blockDim.z + threadIdx.z; z < nz; z += gridDim.z * blockDim.z)
    for (int r = blockIdx.y * blockDim.y + threadIdx.y; r < ny; r += gridDim.y * blockDim.y)
      for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < nx; c += gridDim.x * blockDim.x) {
        int i = (z * ny + r) * nx + c;
        y[i] = x[i] * x[i] * (1.0f + z);
      }
}

void run_grid3(const float *x, float *y, int nx, int ny, int nz) {
  grid3<<<dim3(2, 2, 2), dim3(8, 4, 2)>>>(x, y, nx, ny, nz);
}

__global__ void fma2(const __half2 *a, const __half2 *b, __half2 *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = __hfma2(a[i], b[i], __hmul2(a[i], a[i]));
}

void run_fma2(const __half2 *a, const __half2 *b, __half2 *c, int n) {
  fma2<<<(n + 127) / 128, 128>>>(a, b, c, n);
}

template <typename T, int BLOCK>
__global__ void tsum(const T *__restrict__ x, T *__restrict__ out, int n) {
  __shared__ T s[BLOCK];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  s[threadIdx.x] = i < n ? x[i] * x[i] : T(0);
  __syncthreads();
#pragma unroll
  for (int k = BLOCK / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(out, s[0]);
}

template <typename T> void run_tsum(const T *x, T *out, int n) {
  tsum<T, 128><<<(n + 127) / 128, 128>>>(x, out, n);
}

template <typename T> static std::vector<T> wave(int n, double a, double b) {
  std::vector<T> v(n);
  for (int i = 0; i < n; i++)
    v[i] = (T)(a * sin(b * i + 0.3));
  return v;
}

static void check_hist(void) {
  const int n = 3000, bins = 17;
  std::vector<float> v = wave<float>(n, 1.0, 0.031), dh = wave<float>(bins, 1.0, 0.9);
  std::vector<float> zero(n, 0.0f);
  std::vector<int> bin(n);
  for (int i = 0; i < n; i++)
    bin[i] = (i * 7 + i / 13) % bins;
  float *d_v = to_device(v), *d_dv = to_device(zero), *d_h = device_alloc<float>(bins);
  float *d_dh = to_device(dh);
  int *d_bin = to_device(bin);
  __enzyme_autodiff((void *)run_hist, enzyme_dup, d_v, d_dv, enzyme_const, d_bin, enzyme_dupnoneed,
                    d_h, d_dh, enzyme_const, n);
  check_kernel("hist reverse");
  std::vector<float> dv(n);
  from_device(dv, d_dv);
  for (int i = 0; i < n; i++)
    check_close(dv[i], 2.0 * v[i] * dh[bin[i]], 1e-5, "hist dv[%d]", i);
}

static void check_allreduce(void) {
  const int n = 320;
  std::vector<double> x = wave<double>(n, 1.0, 0.07), w = wave<double>(n, 1.0, 0.05);
  std::vector<double> zero(n, 0.0);
  double *d_x = to_device(x), *d_dx = to_device(zero), *d_y = device_alloc<double>(n);
  double *d_w = to_device(w);
  __enzyme_autodiff((void *)run_allreduce, enzyme_dup, d_x, d_dx, enzyme_dupnoneed, d_y, d_w,
                    enzyme_const, n);
  check_kernel("allreduce reverse");
  std::vector<double> dx(n);
  from_device(dx, d_dx);
  for (int i = 0; i < n; i++) {
    int base = i / 32 * 32;
    double S = 0, wx = 0;
    for (int j = base; j < base + 32; j++) {
      S += x[j] * x[j];
      wx += w[j] * x[j];
    }
    check_close(dx[i], S * w[i] + 2 * x[i] * wx, 1e-12, "allreduce dx[%d]", i);
  }
  std::vector<double> t = wave<double>(n, 1.0, 0.13);
  double *d_t = to_device(t), *d_ty = device_alloc<double>(n);
  __enzyme_fwddiff((void *)run_allreduce, enzyme_dup, d_x, d_t, enzyme_dup, d_y, d_ty,
                   enzyme_const, n);
  check_kernel("allreduce forward");
  std::vector<double> ty(n);
  from_device(ty, d_ty);
  for (int i = 0; i < n; i++) {
    int base = i / 32 * 32;
    double S = 0, dS = 0;
    for (int j = base; j < base + 32; j++) {
      S += x[j] * x[j];
      dS += 2 * x[j] * t[j];
    }
    check_close(ty[i], dS * x[i] + S * t[i], 1e-12, "allreduce tangent[%d]", i);
  }
}

static void check_cgsum(void) {
  const int n = 1000;
  std::vector<float> x = wave<float>(n, 2.0, 0.01), zero(n, 0.0f), seed(1, 0.5f);
  float *d_x = to_device(x), *d_dx = to_device(zero), *d_out = device_alloc<float>(1);
  float *d_seed = to_device(seed);
  __enzyme_autodiff((void *)run_cgsum, enzyme_dup, d_x, d_dx, enzyme_dupnoneed, d_out, d_seed,
                    enzyme_const, n);
  check_kernel("cgsum reverse");
  std::vector<float> dx(n);
  from_device(dx, d_dx);
  for (int i = 0; i < n; i++)
    check_close(dx[i], 0.5 * cos(x[i]), 1e-5, "cgsum dx[%d]", i);
}

static void check_grid3(void) {
  const int nx = 21, ny = 11, nz = 6, n = nx * ny * nz;
  std::vector<float> x = wave<float>(n, 1.0, 0.03), w = wave<float>(n, 1.0, 0.017);
  std::vector<float> zero(n, 0.0f), ones(n, 1.0f);
  float *d_x = to_device(x), *d_dx = to_device(zero), *d_y = device_alloc<float>(n);
  float *d_w = to_device(w);
  __enzyme_autodiff((void *)run_grid3, enzyme_dup, d_x, d_dx, enzyme_dupnoneed, d_y, d_w,
                    enzyme_const, nx, enzyme_const, ny, enzyme_const, nz);
  check_kernel("grid3 reverse");
  std::vector<float> dx(n);
  from_device(dx, d_dx);
  for (int i = 0; i < n; i++)
    check_close(dx[i], 2.0 * x[i] * (1 + i / (nx * ny)) * w[i], 1e-5, "grid3 dx[%d]", i);
  float *d_ones = to_device(ones), *d_ty = device_alloc<float>(n);
  __enzyme_fwddiff((void *)run_grid3, enzyme_dup, d_x, d_ones, enzyme_dup, d_y, d_ty,
                   enzyme_const, nx, enzyme_const, ny, enzyme_const, nz);
  check_kernel("grid3 forward");
  from_device(dx, d_ty);
  for (int i = 0; i < n; i++)
    check_close(dx[i], 2.0 * x[i] * (1 + i / (nx * ny)), 1e-5, "grid3 tangent[%d]", i);
}

static void check_fma2(void) {
  const int n = 200;
  std::vector<__half2> a(n), b(n), w(n), zero(n);
  for (int i = 0; i < n; i++) {
    a[i] = __floats2half2_rn(0.5f + 0.002f * i, -0.25f + 0.003f * i);
    b[i] = __floats2half2_rn(1.0f - 0.001f * i, 0.125f * (i % 5));
    w[i] = __floats2half2_rn(1.0f, 0.5f);
    zero[i] = __floats2half2_rn(0.0f, 0.0f);
  }
  __half2 *d_a = to_device(a), *d_b = to_device(b), *d_c = device_alloc<__half2>(n);
  __half2 *d_da = to_device(zero), *d_db = to_device(zero), *d_w = to_device(w);
  __enzyme_autodiff((void *)run_fma2, enzyme_dup, d_a, d_da, enzyme_dup, d_b, d_db,
                    enzyme_dupnoneed, d_c, d_w, enzyme_const, n);
  check_kernel("fma2 reverse");
  std::vector<__half2> da(n), db(n);
  from_device(da, d_da);
  from_device(db, d_db);
  for (int i = 0; i < n; i++) {
    float al = __low2float(a[i]), ah = __high2float(a[i]);
    float bl = __low2float(b[i]), bh = __high2float(b[i]);
    check_close(__low2float(da[i]), (bl + 2 * al) * 1.0, 1e-2, "fma2 da[%d].x", i);
    check_close(__high2float(da[i]), (bh + 2 * ah) * 0.5, 1e-2, "fma2 da[%d].y", i);
    check_close(__low2float(db[i]), al * 1.0, 1e-2, "fma2 db[%d].x", i);
    check_close(__high2float(db[i]), ah * 0.5, 1e-2, "fma2 db[%d].y", i);
  }
}

template <typename T> static void check_tsum(const char *type, double rtol) {
  const int n = 1000;
  std::vector<T> x = wave<T>(n, 1.0, 0.021), zero(n, T(0)), seed(1, T(2));
  T *d_x = to_device(x), *d_dx = to_device(zero), *d_out = device_alloc<T>(1), *d_seed = to_device(seed);
  __enzyme_autodiff((void *)run_tsum<T>, enzyme_dup, d_x, d_dx, enzyme_dupnoneed, d_out, d_seed,
                    enzyme_const, n);
  check_kernel("tsum reverse");
  std::vector<T> dx(n);
  from_device(dx, d_dx);
  for (int i = 0; i < n; i++)
    check_close(dx[i], 4.0 * x[i], rtol, "tsum<%s> dx[%d]", type, i);
}

int main(void) {
  require_device();
  check_hist();
  check_allreduce();
  check_cgsum();
  check_grid3();
  check_fma2();
  check_tsum<float>("float", 1e-6);
  check_tsum<double>("double", 1e-12);
  device_free_all();
  return check_exit();
}
