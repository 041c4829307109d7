// What cuda_fp16.h and cuda_bf16.h write as assembly that is neither plain
// arithmetic nor rounding to nearest: conversions rounding toward zero, down
// and up (__float2half_rz, _rd, _ru, __float2bfloat16_rz; the value is the
// header's, bit for bit, the derivative passes through), __double2half,
// rounding to integral values (htrunc, hfloor, hceil, hrint, bfloat16's and
// h2floor: derivative 0), the saturating and relu forms (__hadd_sat,
// __hsub_sat, __hmul_sat, __hfma_sat, __hfma_relu, __hadd2_sat, and
// bfloat16's __hadd_sat, __hmul_sat, __hfma_sat, which its header writes as
// a clamped fma: the operation's derivative inside, 0 where clamped) and __hmax_nan. Reverse and
// forward mode, launched from host code and in requests inside a kernel,
// against analytic derivatives whose clamping decisions the host takes from
// the same half values.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: not grep "kwhy.*pointwise_kernel" %t.O0.ptx %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --check-prefix=IR --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The primal keeps the header's rounding toward zero; the clamps are
// selects, the integral rounding the hardware's.
// CHECK-LABEL: .entry __kinase_krev_nd_{{.*}}pointwise_kernel{{.*}}rounded
// CHECK: cvt.rz.f16.f32
// CHECK: cvt.rm.f16.f32
// CHECK: cvt.rp.f16.f32
// CHECK: cvt.rz.bf16.f32
// CHECK-LABEL: .entry __kinase_krev_nd_{{.*}}pointwise_kernel{{.*}}integral
// CHECK: cvt.rzi.f16.f16
// IR-LABEL: define {{.*}} @__kinase_krev_nd_{{.*}}pointwise_kernel{{.*}}saturated{{.*}}(
// IR-NOT:     {{asm .*\.sat\.f16}}
// IR:         ret void

#include <kinase.h>
#include <math.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include "cuda_check.h"
#include "pointwise_check.h"

enum { N = 512 };

static float as_half(double v) { return __half2float(__float2half((float)v)); }
static float as_bfloat16(double v) { return __bfloat162float(__float2bfloat16((float)v)); }

// p = {x, y} in [0.5, 2]^2.
__device__ float rounded(const float *p) {
  float x = p[0], y = p[1];
  __half h1 = __float2half_rz(x * y), h2 = __float2half_rd(x), h3 = __float2half_ru(y);
  __nv_bfloat16 b = __float2bfloat16_rz(x - y);
  return __half2float(h1) + __half2float(h2) * __half2float(h3) + __bfloat162float(b) +
         __half2float(__double2half((double)x * x));
}
static void rounded_want(double x, double y, double *d) {
  d[0] = y + y + 1 + 2 * x;
  d[1] = x + x - 1;
}

// Integral values, each multiplied by something that carries a derivative.
__device__ float integral(const float *p) {
  __half a = __float2half(3 * p[0]), b = __float2half(3 * p[1]);
  __half r = htrunc(a) + hfloor(b) * a + hceil(a) * b + hrint(a);
  __nv_bfloat16 c = __float2bfloat16(2.5f * p[0]);
  __half2 q = h2floor(__floats2half2_rn(3 * p[0], 3 * p[1]));
  return __half2float(r) + __bfloat162float(hceil(c) * c) + __low2float(q) * p[0] + __high2float(q) * p[1];
}
static void integral_want(double x, double y, double *d) {
  double a = as_half(3 * x), b = as_half(3 * y);
  double c = __bfloat162float(__float2bfloat16((float)(2.5 * x)));
  d[0] = 3 * floor(b) + 2.5 * ceil(c) + floor(a);
  d[1] = 3 * ceil(a) + floor(b);
}

// a in [0.2, 0.8], b in [0.15, 0.6]: each clamp is hit for some points.
__device__ float saturated(const float *p) {
  __half a = __float2half(0.4f * p[0]), b = __float2half(0.3f * p[1]);
  __half s = __hadd_sat(a, b) + __hsub_sat(a, b) + __hmul_sat(a, b) + __hfma_sat(a, b, a) +
             __hfma_relu(a, b, __float2half(-0.1f)) + __hmax_nan(a, b);
  __half2 t = __hadd2_sat(__halves2half2(a, b), __halves2half2(a, a));
  __nv_bfloat16 c = __float2bfloat16(0.4f * p[0]), e = __float2bfloat16(0.3f * p[1]);
  __nv_bfloat16 u = __hadd_sat(c, e) + __hmul_sat(c, e) + __hfma_sat(c, e, c);
  return __half2float(s) + __low2float(t) + __high2float(t) + __bfloat162float(u);
}
static void saturated_want(double x, double y, double *d) {
  double a = as_half(0.4 * x), b = as_half(0.3 * y);
  auto inside = [](double v) { return v > 0 && v < 1 ? 1.0 : 0.0; };
  double add = inside(as_half(a + b)), sub = inside(as_half(a - b)), mul = inside(as_half(a * b));
  double fma = inside(as_half(a * b + a)), relu = as_half(a * b + as_half(-0.1)) > 0 ? 1.0 : 0.0;
  double twice = inside(as_half(a + a));
  /* t's lanes: a + a and b + a. */
  double da = add + sub + mul * b + fma * (b + 1) + relu * b + (a >= b ? 1 : 0) + add + twice * 2;
  double db = add - sub + mul * a + fma * a + relu * a + (a >= b ? 0 : 1) + add;
  double c = as_bfloat16(0.4 * x), e = as_bfloat16(0.3 * y);
  double badd = inside(as_bfloat16(c + e)), bmul = inside(as_bfloat16(c * e));
  double bfma = inside(as_bfloat16(c * e + c));
  da += badd + bmul * e + bfma * (e + 1);
  db += badd + bmul * c + bfma * c;
  d[0] = 0.4 * da;
  d[1] = 0.3 * db;
}

int main(void) {
  require_device();
  static float in[2 * N];
  pointwise_grid(in, N, 0.5, 2.0);
  float *d_in = to_device(in);
  pointwise_all<float, rounded>("rounded conversions", in, d_in, N, rounded_want, 1e-2);
  pointwise_all<float, integral>("integral rounding", in, d_in, N, integral_want, 1e-2);
  pointwise_all<float, saturated>("saturating and relu", in, d_in, N, saturated_want, 1e-2);
  device_free_all();
  return check_exit();
}
