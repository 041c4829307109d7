// The math functions of cuda_fp16.h and cuda_bf16.h (hexp, hexp2, hexp10,
// hlog, hlog2, hlog10, hsin, hcos, htanh, hsqrt, hrsqrt, hrcp), differentiated
// by name: the primal calls the header's function, the derivative is a row of
// lib/rules/nvvm.def computed in half or bfloat16. And the pairs __half2 and
// __nv_bfloat162: their arithmetic (__hmul2, __hfma2, operators, ...), lane
// moves and conversions (__floats2half2_rn, __low2float, __halves2half2, ...),
// and their math (h2exp, h2sin, ...) as <2 x half> and <2 x bfloat> IR.
// Reverse and forward mode, for a kernel launched from host code and inside a
// kernel on a __device__ function. The derivatives are checked at the inputs
// rounded to half or bfloat16, with tolerances of 11 and 8 bits of mantissa.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --check-prefix=IR --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// Every kernel has its derivative kernels (no "cannot be differentiated"):
// CHECK-NOT: __kinase_kwhy_{{.*}}pointwise_kernel
// CHECK: .entry __kinase_krev_nd_{{.*}}pointwise_kernel{{.*}}half_exp_log{{.*}}(
// CHECK-NOT: __kinase_kwhy_{{.*}}pointwise_kernel
//
// The primal keeps the header's assembly, special cases and all; hsin's
// derivative is cos.approx of the input widened, in place of the header's
// range reduction.
// IR-LABEL: define {{.*}} @__kinase_krev_nd_{{.*}}pointwise_kernel{{.*}}half_trig{{.*}}(
// IR:         asm {{.*}}set.eq.f16.f16
// IR:         call float @llvm.nvvm.cos.approx.ftz.f(
// IR:         ret void
//
// Pairs are vectors: the derivative of __hmul2 and __hfma2 is vector IR.
// IR-LABEL: define {{.*}} @__kinase_krev_nd_{{.*}}pointwise_kernel{{.*}}half_pairs{{.*}}(
// IR:         fmul contract <2 x half>
// IR:         ret void
// IR-LABEL: define {{.*}} @__kinase_krev_nd_{{.*}}pointwise_kernel{{.*}}bfloat16_pairs{{.*}}(
// IR:         fmul contract <2 x bfloat>
// IR:         ret void

#include <kinase.h>
#include <math.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include "cuda_check.h"
#include "pointwise_check.h"

enum { N = 256 };

// p = {x, y} in [0.5, 2]^2.
__device__ float half_exp_log(const float *p) {
  __half a = __float2half(p[0]), b = __float2half(p[1]);
  __half c = hexp(a) * hlog(b) + hexp2(b) + hlog2(a) + hlog10(b) + hexp10(a) * __float2half(0.01f);
  return __half2float(c);
}
static void exp_log_want(double x, double y, double *d) {
  d[0] = exp(x) * log(y) + 1 / (x * log(2.0)) + 0.01 * log(10.0) * pow(10.0, x);
  d[1] = exp(x) / y + log(2.0) * exp2(y) + 1 / (y * log(10.0));
}

__device__ float half_trig(const float *p) {
  __half a = __float2half(p[0]), b = __float2half(p[1]);
  __half c = hsin(a) * hcos(b) + htanh(a * b) + hsqrt(a) * hrsqrt(b) + hrcp(a);
  return __half2float(c);
}
static void trig_want(double x, double y, double *d) {
  double s = 1 - tanh(x * y) * tanh(x * y);
  d[0] = cos(x) * cos(y) + s * y + 0.5 / sqrt(x * y) - 1 / (x * x);
  d[1] = -sin(x) * sin(y) + s * x - 0.5 * sqrt(x) / (y * sqrt(y));
}

__device__ float bfloat16_math(const float *p) {
  __nv_bfloat16 a = __float2bfloat16(p[0]), b = __float2bfloat16(p[1]);
  __nv_bfloat16 c = hexp(a) * hlog(b) + hsin(a) * hcos(b) + hsqrt(a) + hrcp(b);
  return __bfloat162float(c);
}
static void bfloat16_math_want(double x, double y, double *d) {
  d[0] = exp(x) * log(y) + cos(x) * cos(y) + 0.5 / sqrt(x);
  d[1] = exp(x) / y - sin(x) * sin(y) - 1 / (y * y);
}

// Pairs: lanes {x, y}, then {y, x}; f = lo(r) * hi(r) + x / y + x y, the
// last term through the fields .x and .y (sroa's integer slicing of the
// pair, read back as lanes).
__device__ float half_pairs(const float *p) {
  __half2 a = __floats2half2_rn(p[0], p[1]);
  __half2 b = __hfma2(a, a, __hmul2(a, __float2half2_rn(0.5f)));  // a^2 + a/2
  __half2 c = h2exp(__hneg2(a)) + h2sin(a) + __h2div(b, a);        // e^-a + sin a + a + 1/2
  __half2 r = __halves2half2(__high2half(c), __low2half(c)) * __lowhigh2highlow(a);
  r = __hmax2(r, __habs2(__hsub2(a, a)));                          // r > 0: r
  __half2 q = make_half2(a.y, a.x) * a;                            // {x y, x y}
  return __low2float(r) * __high2float(r) + __low2float(__lows2half2(a, r)) / __high2float(a) +
         __half2float(q.y);
}
static double pair_lane(double x) { return exp(-x) + sin(x) + x + 0.5; }
static double pair_lane_d(double x) { return -exp(-x) + cos(x) + 1; }
static void half_pairs_want(double x, double y, double *d) {
  // r = {c(y) * y, c(x) * x}: f = c(x) c(y) x y + x / y + x y.
  d[0] = (pair_lane_d(x) * x + pair_lane(x)) * pair_lane(y) * y + 1 / y + y;
  d[1] = (pair_lane_d(y) * y + pair_lane(y)) * pair_lane(x) * x - x / (y * y) + x;
}

__device__ float bfloat16_pairs(const float *p) {
  __nv_bfloat162 a = __floats2bfloat162_rn(p[0], p[1]);
  __nv_bfloat162 b = __hfma2(a, a, __hmul2(a, __float2bfloat162_rn(0.5f)));
  __nv_bfloat162 c = h2exp(__hneg2(a)) + h2sin(a) + __h2div(b, a);
  __nv_bfloat162 r = __halves2bfloat162(__high2bfloat16(c), __low2bfloat16(c)) * __lowhigh2highlow(a);
  __nv_bfloat162 q = make_bfloat162(a.y, a.x) * a;
  return __low2float(r) * __high2float(r) + __low2float(a) / __high2float(a) + __bfloat162float(q.y);
}

// The derivatives at the inputs as the kernels see them, rounded.
static float (*round_input)(float);
static float to_half(float v) { return __half2float(__float2half(v)); }
static float to_bfloat16(float v) { return __bfloat162float(__float2bfloat16(v)); }
static void (*rounded_want)(double, double, double *);
static void at_rounded(double x, double y, double *d) { rounded_want(round_input((float)x), round_input((float)y), d); }

template <float (*f)(const float *)>
static void check_half(const char *what, const float *in, const float *d_in, float (*round)(float),
                       void (*want)(double, double, double *), double rtol) {
  round_input = round;
  rounded_want = want;
  pointwise_all<float, f>(what, in, d_in, N, at_rounded, rtol);
}

int main(void) {
  require_device();
  static float in[2 * N];
  pointwise_grid(in, N, 0.5, 2.0);
  float *d_in = to_device(in);
  check_half<half_exp_log>("half exp, log", in, d_in, to_half, exp_log_want, 2e-2);
  check_half<half_trig>("half sin, cos, tanh, sqrt", in, d_in, to_half, trig_want, 2e-2);
  check_half<bfloat16_math>("bfloat16 math", in, d_in, to_bfloat16, bfloat16_math_want, 8e-2);
  check_half<half_pairs>("__half2", in, d_in, to_half, half_pairs_want, 2e-2);
  check_half<bfloat16_pairs>("__nv_bfloat162", in, d_in, to_bfloat16, half_pairs_want, 8e-2);
  device_free_all();
  return check_exit();
}
