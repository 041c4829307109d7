// Mixed-precision kernels as CUDA code writes them, launched from
// differentiated host functions:
//  - a gather of __half through a permutation with repeats, `y[i] =
//    __ldg(&x[perm[i]])`: the kernel only copies halves, as 16-bit
//    integers, and the halves' __ldg is assembly (ld.global.nc.b16). Its
//    pointers were taken for memory of no floats: its reverse kernel took
//    them as Const and the gradient was silently 0; and the copy's reverse
//    was an atomic add of half aligned to 1 byte, which NVPTX expands into
//    a compare-and-swap it cannot make ("unsupported cmpxchg": the whole
//    file failed to compile), once the kernel also did half arithmetic;
//  - a warp sum of squares in __half with __shfl_down_sync on __half, which
//    the header writes as assembly shuffling the pair (v, v) as 32 bits
//    (shfl.sync.down.b32, with WARP_SZ for the clamp): the kernel had no
//    derivative kernels;
//  - a bfloat16 ReLU, `v > zero ? v : zero`, reading through __ldcs and
//    guarded by __hisnan: the bfloat16 comparisons and set.nan are assembly
//    too, and had no rows; the nested choice of locals kept them in memory
//    (their shadows on the device heap);
//  - a butterfly all-reduce of __half2 sums of squares (a grid-stride loop
//    of __hfma2) with __shfl_xor_sync.
//   loss1 = sum_i x[perm[i]]^2         d/dx_j = 2 x_j count(perm == j)
//   loss2 = sum_i relu(b_i)^2          d/db_i = 2 b_i (b_i > 0)
//   loss3 = sum_k p_k.x^2 + p_k.y^2    d/dp_k = 2 p_k
// Gradients against these (to half and bfloat16 precision); forward mode
// of loss1 along a direction against its gradient.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --check-prefix=ENTRY --input-file=%t.ptx
// RUN: FileCheck %s --check-prefix=ENTRY --input-file=%t.O0.ptx
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// Every kernel has derivative kernels, the gather's pointers dup:
// ENTRY-NOT: __kinase_kwhy
// ENTRY-DAG: .entry __kinase_krev_dnc__Z11gather_half
// ENTRY-DAG: .entry __kinase_krev_dn__Z11warp_sum_sq
// ENTRY-DAG: .entry __kinase_krev_dn__Z9relu_bf16
// ENTRY-DAG: .entry __kinase_krev_dn__Z14pair_butterfly
// The gather's adjoint goes back with the native half atomic add:
// CHECK-LABEL: .entry __kinase_krev_dnc__Z11gather_half
// CHECK-NOT: atom{{.*}}cas
// CHECK: atom.global.add.noftz.f16
// CHECK-LABEL: .entry __kinase_krev_dn__Z11warp_sum_sq
// CHECK: shfl.sync.up
// The ReLU's nested choice between two locals, `c1 ? zero : (c2 ? v :
// zero)`, is a load through a select of selects of their addresses, which
// sroa leaves: each local had a shadow on the device heap, per thread.
// CHECK-LABEL: .entry __kinase_krev_dn__Z9relu_bf16
// CHECK-NOT: malloc
// CHECK-LABEL: .entry __kinase_krev_cn__Z9relu_bf16

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 1000, NPAIRS = 512, THREADS = 128 };

__global__ void gather_half(const __half *x, __half *y, const int *perm, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = __ldg(&x[perm[i]]);
}

__global__ void warp_sum_sq(const __half *y, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  __half v = i < n ? __hmul(y[i], y[i]) : __float2half(0.f);
  for (int offset = 16; offset > 0; offset >>= 1)
    v = __hadd(v, __shfl_down_sync(0xffffffffu, v, offset));
  if ((threadIdx.x & 31) == 0)
    atomicAdd(out, __half2float(v));
}

__global__ void relu_bf16(const __nv_bfloat16 *b, __nv_bfloat16 *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  __nv_bfloat16 v = __ldcs(&b[i]), zero = __float2bfloat16(0.f);
  y[i] = __hisnan(v) ? zero : (v > zero ? v : zero);
}

__global__ void sum_sq_bf16(const __nv_bfloat16 *y, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = __bfloat162float(y[i]);
    atomicAdd(out, v * v);
  }
}

// A grid-stride sum of squares per thread; the butterfly leaves every
// lane with its warp's sum, and lane 0 adds it.
__global__ void pair_butterfly(const __half2 *p, float *out, int npairs) {
  __half2 acc = __float2half2_rn(0.f);
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < npairs; k += gridDim.x * blockDim.x)
    acc = __hfma2(p[k], p[k], acc);
  for (int mask = 16; mask > 0; mask >>= 1)
    acc = __hadd2(acc, __shfl_xor_sync(0xffffffffu, acc, mask));
  if (threadIdx.x % 32 == 0)
    atomicAdd(out, __low2float(acc) + __high2float(acc));
}

static float read_scalar(float *d) {
  float h = 0;
  cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(d);
  return h;
}

static float *zeroed_scalar() {
  float *d;
  cudaMalloc(&d, sizeof(float));
  cudaMemset(d, 0, sizeof(float));
  return d;
}

// The host data in a std::vector<__half>, copied in here.
float loss1(const std::vector<__half> &x, const int *perm, int n) {
  __half *d_x, *d_y;
  cudaMalloc(&d_x, n * sizeof(__half));
  cudaMalloc(&d_y, n * sizeof(__half));
  cudaMemcpy(d_x, x.data(), n * sizeof(__half), cudaMemcpyHostToDevice);
  float *out = zeroed_scalar();
  gather_half<<<blocks_for(n, THREADS), THREADS>>>(d_x, d_y, perm, n);
  warp_sum_sq<<<blocks_for(n, THREADS), THREADS>>>(d_y, out, n);
  cudaFree(d_y);
  cudaFree(d_x);
  return read_scalar(out);
}

float loss2(const __nv_bfloat16 *b, int n) {
  __nv_bfloat16 *y;
  cudaMalloc(&y, n * sizeof(__nv_bfloat16));
  float *out = zeroed_scalar();
  relu_bf16<<<blocks_for(n, THREADS), THREADS>>>(b, y, n);
  sum_sq_bf16<<<blocks_for(n, THREADS), THREADS>>>(y, out, n);
  cudaFree(y);
  return read_scalar(out);
}

float loss3(const __half2 *p, int npairs) {
  float *out = zeroed_scalar();
  pair_butterfly<<<2, THREADS>>>(p, out, npairs); // two pairs a thread
  return read_scalar(out);
}

int main() {
  require_device();
  std::vector<__half> x(N), dx(N, __float2half(0.f)), tx(N);
  std::vector<int> perm(N), count(N, 0);
  for (int i = 0; i < N; i++) {
    x[i] = __float2half(0.9f * sinf(0.37f * i));
    tx[i] = __float2half(cosf(0.21f * i));
    perm[i] = (7 * i) % (N / 2); // each of the first N/2 twice
    count[perm[i]]++;
  }
  int *d_perm = to_device(perm);
  __enzyme_autodiff((void *)loss1, enzyme_dup, &x, &dx, enzyme_const, d_perm, enzyme_const, N);
  check_kernel("gradient of loss1");
  double t = __enzyme_fwddiff((void *)loss1, enzyme_dup, &x, &tx, enzyme_const, d_perm, enzyme_const, N);
  check_kernel("tangent of loss1");
  double t_want = 0;
  for (int j = 0; j < N; j++) {
    double want = 2.0 * __half2float(x[j]) * count[j];
    check_close(__half2float(dx[j]), want, 1e-2, "dloss1/dx[%d]", j);
    t_want += want * __half2float(tx[j]);
  }
  check_close(t, t_want, 2e-2, "tangent of loss1");

  std::vector<__nv_bfloat16> b(N), db(N, __float2bfloat16(0.f));
  for (int i = 0; i < N; i++)
    b[i] = __float2bfloat16(sinf(0.13f * i + 0.4f));
  __nv_bfloat16 *d_b = to_device(b), *d_db = to_device(db);
  __enzyme_autodiff((void *)loss2, enzyme_dup, d_b, d_db, enzyme_const, N);
  check_kernel("gradient of loss2");
  from_device(db, d_db);
  for (int i = 0; i < N; i++) {
    float bi = __bfloat162float(b[i]);
    check_close(__bfloat162float(db[i]), bi > 0 ? 2.0 * bi : 0.0, 2e-2, "dloss2/db[%d]", i);
  }

  std::vector<__half2> p(NPAIRS), dp(NPAIRS, __float2half2_rn(0.f));
  for (int k = 0; k < NPAIRS; k++)
    p[k] = __floats2half2_rn(0.5f * cosf(0.3f * k), 0.7f * sinf(0.11f * k));
  __half2 *d_p = to_device(p), *d_dp = to_device(dp);
  __enzyme_autodiff((void *)loss3, enzyme_dup, d_p, d_dp, enzyme_const, NPAIRS);
  check_kernel("gradient of loss3");
  from_device(dp, d_dp);
  for (int k = 0; k < NPAIRS; k++) {
    check_close(__low2float(dp[k]), 2.0 * __low2float(p[k]), 1e-2, "dloss3/dp[%d].x", k);
    check_close(__high2float(dp[k]), 2.0 * __high2float(p[k]), 1e-2, "dloss3/dp[%d].y", k);
  }
  device_free_all();
  return check_exit();
}
