// Forward mode inside a kernel through libdevice's special functions:
// lgamma and tgamma (whose derivatives call Kinase's own digamma, built on
// __nv_log, __nv_tan and __nv_rint), jn and yn of integer order (order 0
// asks for order -1, which libdevice does not take: Kinase reflects it),
// and sincos, which stores its results (Kinase puts __nv_sin and __nv_cos
// in its place); double and float. The host checks the tangents against
// its own digamma and libm.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: FileCheck %s --input-file=%t.O0.ptx
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK-NOT: __enzyme_fwddiff
// CHECK: .entry _Z8tangentsPKdPdi
// CHECK-NOT: __enzyme_fwddiff
// CHECK-NOT: __nv_sincos

#include <math.h>
#include "cuda_check.h"

__device__ int enzyme_dup;
__device__ int enzyme_const;
extern __device__ double __enzyme_fwddiff(void *, ...);
extern __device__ float __enzyme_fwddiff_float(void *, ...);

__device__ double f_lgamma(double x) { return lgamma(x); }
__device__ double f_tgamma(double x) { return tgamma(x); }
__device__ double f_jn(int n, double x) { return jn(n, x); }
__device__ double f_yn(int n, double x) { return yn(n, x); }
__device__ double f_sincos(double x) {
  double s, c;
  sincos(x, &s, &c);
  return s * c + s;
}
__device__ float f_lgammaf(float x) { return lgammaf(x); }
__device__ float f_jnf(int n, float x) { return jnf(n, x); }
__device__ float f_sincosf(float x) {
  float s, c;
  sincosf(x, &s, &c);
  return s * c;
}

enum { NF = 12 };

__global__ void tangents(const double *x, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double xi = x[i];
  double *o = out + (size_t)i * NF;
  o[0] = __enzyme_fwddiff((void *)f_lgamma, enzyme_dup, xi, 1.0);
  o[1] = __enzyme_fwddiff((void *)f_tgamma, enzyme_dup, xi, 1.0);
  o[2] = __enzyme_fwddiff((void *)f_jn, enzyme_const, 0, enzyme_dup, xi, 1.0);
  o[3] = __enzyme_fwddiff((void *)f_jn, enzyme_const, 1, enzyme_dup, xi, 1.0);
  o[4] = __enzyme_fwddiff((void *)f_jn, enzyme_const, 3, enzyme_dup, xi, 1.0);
  o[5] = __enzyme_fwddiff((void *)f_yn, enzyme_const, 0, enzyme_dup, xi, 1.0);
  o[6] = __enzyme_fwddiff((void *)f_yn, enzyme_const, 2, enzyme_dup, xi, 1.0);
  o[7] = __enzyme_fwddiff((void *)f_sincos, enzyme_dup, xi, 1.0);
  o[8] = __enzyme_fwddiff_float((void *)f_lgammaf, enzyme_dup, (float)xi, 1.0f);
  o[9] = __enzyme_fwddiff_float((void *)f_jnf, enzyme_const, 0, enzyme_dup, (float)xi, 1.0f);
  o[10] = __enzyme_fwddiff_float((void *)f_jnf, enzyme_const, 2, enzyme_dup, (float)xi, 1.0f);
  o[11] = __enzyme_fwddiff_float((void *)f_sincosf, enzyme_dup, (float)xi, 1.0f);
}

// digamma in long double: reflection, recurrence up to 40, series.
static long double digamma(long double x) {
  const long double pi = 3.141592653589793238462643383279502884L;
  long double acc = 0;
  if (x < 0) {
    acc = -pi / tanl(pi * (x - rintl(x)));
    x = 1 - x;
  }
  for (; x < 40; x += 1)
    acc -= 1 / x;
  long double w = 1 / (x * x);
  return acc + logl(x) - 0.5L / x -
         w * (1.0L / 12 - w * (1.0L / 120 - w * (1.0L / 252 - w * (1.0L / 240 - w / 132))));
}

// Z(n)' = (Z(n-1) - Z(n+1)) / 2, with the host's libm, which takes order -1.
static double bessel_d(double (*z)(int, double), int n, double x) {
  return (z(n - 1, x) - z(n + 1, x)) / 2;
}

static void exact(double x, double *d) {
  float xf = (float)x;
  d[0] = (double)digamma(x);
  d[1] = tgamma(x) * d[0];
  d[2] = bessel_d(jn, 0, x);
  d[3] = bessel_d(jn, 1, x);
  d[4] = bessel_d(jn, 3, x);
  d[5] = bessel_d(yn, 0, x);
  d[6] = bessel_d(yn, 2, x);
  d[7] = cos(2 * x) + cos(x);
  d[8] = (double)digamma(xf);
  d[9] = bessel_d(jn, 0, xf);
  d[10] = bessel_d(jn, 2, xf);
  d[11] = cos(2.0 * xf);
}

int main(void) {
  enum { N = 512 };
  static double x[N], out[N * NF];
  // (0.05, 12], away from yn's pole at 0; and a few negative points for
  // lgamma and tgamma's reflection.
  for (int i = 0; i < N; i++)
    x[i] = 0.05 + 11.95 * i / (N - 1);
  x[1] = -0.3, x[2] = -2.7, x[3] = -5.5;

  require_device();
  double *d_x = to_device(x), *d_out = device_alloc(out);
  tangents<<<blocks_for(N, 128), 128>>>(d_x, d_out, N);
  check_kernel("tangents");
  from_device(out, d_out);
  device_free_all();

  static const char *const names[NF] = {"lgamma", "tgamma",  "jn(0)", "jn(1)",   "jn(3)", "yn(0)",
                                        "yn(2)",  "sincos", "lgammaf", "jnf(0)", "jnf(2)", "sincosf"};
  // libdevice's Bessel functions are good to about 1e-15 absolute here;
  // float tangents to float precision.
  static const double rtol[NF] = {1e-12, 1e-12, 1e-12, 1e-12, 1e-12, 1e-12,
                                  1e-12, 1e-12, 1e-5,  1e-5,  1e-5,  1e-5};
  for (int i = 0; i < N; i++) {
    double e[NF];
    exact(x[i], e);
    for (int k = 0; k < NF; k++) {
      bool bessel = (k >= 2 && k <= 6) || k == 9 || k == 10;
      if (x[i] >= 0 || !bessel)
        check_close(out[i * NF + k], e[k], rtol[k], "%s at x = %.17g", names[k], x[i]);
    }
  }
  return check_exit();
}
