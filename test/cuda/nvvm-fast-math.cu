// CUDA's fast and rounded intrinsic functions, what -ffast-math
// (-use_fast_math) makes of expf, logf, sinf, powf, and the NVVM intrinsics
// under them (ex2.approx, lg2.approx, sin/cos.approx, div.approx, rsqrt,
// saturate, fmin/fmax, the rounded add/mul/fma/div/rcp/sqrt): gradients in
// float and double, by reverse and forward mode, both inside a kernel on a
// __device__ function and for a kernel launched from host code, against
// central differences of the exact functions in double. Tolerances are those
// of the approximations (about 2^-21 relative).
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O2 -ffast-math -fcuda-flush-denormals-to-zero --cuda-device-only -S %s -o %t.fast.ptx
// RUN: %ptxas -arch=sm_90 %t.fast.ptx -o %t.fast.cubin
// RUN: FileCheck %s --check-prefix=FAST --input-file=%t.fast.ptx
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The derivatives use the fast instructions too: the reverse kernel of the
// float kernel has the approximate ones and no libdevice call left.
// CHECK-LABEL: .entry __kinase_krev_nd_{{.*}}pointwise_kernel{{.*}}4fast{{.*}}(
// CHECK-DAG:     ex2.approx
// CHECK-DAG:     lg2.approx
// CHECK-DAG:     sin.approx.f32
// CHECK-DAG:     cos.approx.f32
// CHECK-DAG:     div.approx.f32
// CHECK-DAG:     rsqrt.approx.f32
// CHECK:         ret;
// CHECK-NOT: __enzyme_autodiff
//
// With -ffast-math and flushed denormals, plain expf, logf, sinf, powf become
// the fast functions, and the ftz forms of the intrinsics appear.
// FAST-LABEL: .entry __kinase_krev_nd_{{.*}}pointwise_kernel{{.*}}4libm{{.*}}(
// FAST-DAG:     ex2.approx.ftz.f32
// FAST-DAG:     lg2.approx.ftz.f32
// FAST-DAG:     sin.approx.ftz.f32
// FAST:         ret;

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"
#include "pointwise_check.h"

enum { N = 256 };

// p = {x, y}, y > 0.5.
__device__ float fast(const float *p) {
  float x = p[0], y = p[1];
  return __expf(0.5f * x) * __logf(y) + __fdividef(x, y) + __sinf(x) * __cosf(y) + __powf(y, x) +
         __saturatef(0.3f * x) + __tanf(0.2f * x) + __exp10f(0.1f * x) + __log2f(y) +
         __log10f(y) + rsqrtf(y) + __frsqrt_rn(y) + __fsqrt_rn(y) + __fsqrt_rz(y) +
         __fdiv_rn(x, y) + __frcp_rn(y) + __fmaf_rn(x, y, x) + __fmul_rz(x, y) +
         __fadd_rd(x, y) + __fsub_rn(x, y) + fminf(x, y) + fmaxf(x, y) + fabsf(x);
}
static double fast_exact(double x, double y) {
  return exp(0.5 * x) * log(y) + x / y + sin(x) * cos(y) + pow(y, x) + fmin(fmax(0.3 * x, 0.0), 1.0) +
         tan(0.2 * x) + pow(10.0, 0.1 * x) + log2(y) + log10(y) + 2 / sqrt(y) + 2 * sqrt(y) +
         x / y + 1 / y + (x * y + x) + x * y + (x + y) + (x - y) + fmin(x, y) + fmax(x, y) + fabs(x);
}

// The same through plain libm names: the precise functions here, the fast
// ones under -ffast-math (the FAST checks).
__device__ float libm(const float *p) {
  float x = p[0], y = p[1];
  return expf(0.5f * x) * logf(y) + x / y + sinf(x) * cosf(y) + powf(y, x);
}
static double libm_exact(double x, double y) {
  return exp(0.5 * x) * log(y) + x / y + sin(x) * cos(y) + pow(y, x);
}

__device__ double rounded(const double *p) {
  double x = p[0], y = p[1];
  return __dsqrt_rn(y) + __ddiv_rn(x, y) + __drcp_rn(y) + __fma_rn(x, y, x) + __dadd_rz(x, y) +
         __dmul_rn(x, y) + rsqrt(y) + fmin(x, y) + fmax(x, y) + fabs(x);
}
static double rounded_exact(double x, double y) {
  return sqrt(y) + x / y + 1 / y + (x * y + x) + (x + y) + x * y + 1 / sqrt(y) + fmin(x, y) +
         fmax(x, y) + fabs(x);
}

// Points away from the kinks of min, max, |x| and saturate.
template <class T> static void points(T (&in)[2 * N]) {
  for (int i = 0; i < N; i++) {
    double x = -1.5 + 3.0 * (i + 0.5) / N, y = 0.6 + 1.9 * fmod(0.618034 * i, 1.0);
    if (fabs(x - y) < 1e-2)
      y += 0.05;
    in[2 * i] = (T)x;
    in[2 * i + 1] = (T)y;
  }
}

// Central differences of the exact function at the point as stored.
static void central(double (*f)(double, double), double x, double y, double *d) {
  double h = 1e-5;
  d[0] = (f(x + h, y) - f(x - h, y)) / (2 * h);
  d[1] = (f(x, y + h) - f(x, y - h)) / (2 * h);
}
static void fast_want(double x, double y, double *d) { central(fast_exact, x, y, d); }
static void libm_want(double x, double y, double *d) { central(libm_exact, x, y, d); }
static void rounded_want(double x, double y, double *d) { central(rounded_exact, x, y, d); }

int main(void) {
  require_device();
  static float in[2 * N];
  static double ind[2 * N];
  points(in);
  points(ind);
  float *d_in = to_device(in);
  double *d_ind = to_device(ind);
  pointwise_all<float, fast>("fast", in, d_in, N, fast_want, 2e-3);
  pointwise_all<float, libm>("libm", in, d_in, N, libm_want, 2e-3);
  pointwise_all<double, rounded>("rounded", ind, d_ind, N, rounded_want, 1e-7);
  device_free_all();
  return check_exit();
}
