// __half and __nv_bfloat16 arithmetic (cuda_fp16.h, cuda_bf16.h; hsqrt and
// hrcp too), which the headers write as inline assembly on 16-bit integers
// (add.f16, cvt.rn.f16.f32, ...): Kinase reads that assembly as half
// arithmetic. Float in, float out,
// computing in half or bfloat16 in between: conversions pass the derivative
// through with the cast. Reverse and forward mode, for a kernel launched from
// host code and inside a kernel on a __device__ function; and half memory
// (the gradient of __half weights, in half). Tolerances are those of 11 and 8
// bits of mantissa.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --check-prefix=IR --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// Every kernel has its derivative kernels (no "cannot be differentiated"):
// CHECK-NOT: __kinase_kwhy_{{.*}}pointwise_kernel
// CHECK: .entry __kinase_krev_nd_{{.*}}pointwise_kernel{{.*}}in_half{{.*}}(
// CHECK-NOT: __kinase_kwhy_{{.*}}pointwise_kernel
//
// The derivative computes in half, with half instructions, not on integers
// (hsqrt and hrcp keep the header's assembly for their values).
// IR-LABEL: define {{.*}} @__kinase_krev_nd_{{.*}}pointwise_kernel{{.*}}in_half{{.*}}(
// IR-NOT:     {{asm .*(add|sub|mul|fma\.rn)\.f16 \$0}}
// IR:         fmul contract half
// IR:         ret void

#include <kinase.h>
#include <math.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include "cuda_check.h"
#include "pointwise_check.h"

enum { N = 256, K = 4, THREADS = 64 };

// p = {x, y} in [0.5, 2]^2.
__device__ float in_half(const float *p) {
  __half a = __float2half(p[0]), b = __float2half(p[1]);
  __half c = a * b + a - b / a;
  c = __hfma(c, a, __hneg(b)) + __habs(a) + hsqrt(a) + hrcp(b);
  return __half2float(c) + (a < b ? 1.0f : 2.0f);
}
static void in_half_want(double x, double y, double *d) {
  double c1 = x * y + x - y / x;
  d[0] = (y + 1 + y / (x * x)) * x + c1 + 1 + 0.5 / sqrt(x);
  d[1] = (x - 1 / x) * x - 1 - 1 / (y * y);
}

__device__ float in_bfloat16(const float *p) {
  __nv_bfloat16 u = __float2bfloat16(p[0]), v = __float2bfloat16(p[1]);
  __nv_bfloat16 w = u * v - u / v + __hfma(u, u, v);
  return __bfloat162float(w);
}
static void in_bfloat16_want(double x, double y, double *d) {
  d[0] = y - 1 / y + 2 * x;
  d[1] = x + x / (y * y) + 1;
}

// Half memory: sum_k w_k x_k^2 with the products in half.
__device__ float half_weights(const __half *w, const float *x) {
  __half s = __float2half(0.0f);
  for (int k = 0; k < K; k++) {
    __half xk = __float2half(x[k]);
    s = __hfma(w[k], xk * xk, s);
  }
  return __half2float(s);
}

__global__ void weights_side(const __half *w, __half *dw, const float *x, float *dx) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N)
    __enzyme_autodiff((void *)half_weights, enzyme_dup, w + K * i, dw + K * i, enzyme_dup, x + K * i,
                      dx + K * i);
}

int main(void) {
  require_device();
  static float in[2 * N];
  pointwise_grid(in, N, 0.5, 2.0);
  float *d_in = to_device(in);
  pointwise_all<float, in_half>("half", in, d_in, N, in_half_want, 1e-2);
  pointwise_all<float, in_bfloat16>("bfloat16", in, d_in, N, in_bfloat16_want, 5e-2);

  // Half weights, one set per thread: d/dw_k = x_k^2, d/dx_k = 2 w_k x_k.
  static __half w[K * N], dw[K * N];
  static float x[K * N], dx[K * N];
  for (int j = 0; j < K * N; j++) {
    w[j] = __float2half((float)(0.25 + 0.5 * fmod(0.377 * j, 1.0)));
    x[j] = (float)(0.5 + fmod(0.713 * j, 1.0));
    dw[j] = __float2half(0.0f);
  }
  __half *d_w = to_device(w), *d_dw = to_device(dw);
  float *d_x = to_device(x), *d_dx = to_device(dx);
  check_cuda(cudaMemset(d_dx, 0, sizeof dx), "cudaMemset");
  weights_side<<<blocks_for(N, THREADS), THREADS>>>(d_w, d_dw, d_x, d_dx);
  check_kernel("weights_side");
  from_device(dw, d_dw);
  from_device(dx, d_dx);
  device_free_all();
  for (int j = 0; j < K * N; j++) {
    double wj = __half2float(w[j]), xj = x[j];
    check_close(__half2float(dw[j]), xj * xj, 1e-2, "half memory: d/dw[%d]", j);
    check_close(dx[j], 2 * wj * xj, 1e-2, "half memory: d/dx[%d]", j);
  }
  return check_exit();
}
