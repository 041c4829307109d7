// RUN: %check-c %s %t
// Forward mode through the float variants of the libm functions (sinf,
// expf, powf, ...) in functions on float. Tangents come back as float.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
float __enzyme_fwddiff_float(void *, ...);

static float f_sqrtf(float x) { return sqrtf(x); }
static float f_sinf(float x) { return sinf(x); }
static float f_cosf(float x) { return cosf(x); }
static float f_tanf(float x) { return tanf(x); }
static float f_expf(float x) { return expf(x); }
static float f_exp2f(float x) { return exp2f(x); }
static float f_expm1f(float x) { return expm1f(x); }
static float f_logf(float x) { return logf(x); }
static float f_log2f(float x) { return log2f(x); }
static float f_log10f(float x) { return log10f(x); }
static float f_log1pf(float x) { return log1pf(x); }
static float f_asinf(float x) { return asinf(x); }
static float f_acosf(float x) { return acosf(x); }
static float f_atanf(float x) { return atanf(x); }
static float f_sinhf(float x) { return sinhf(x); }
static float f_coshf(float x) { return coshf(x); }
static float f_tanhf(float x) { return tanhf(x); }
static float f_erff(float x) { return erff(x); }
static float f_erfcf(float x) { return erfcf(x); }
static float f_cbrtf(float x) { return cbrtf(x); }
static float f_fabsf(float x) { return fabsf(x); }
static float f_floorf(float x) { return floorf(x) + x; }
static float f_powf(float x, float y) { return powf(x, y); }
static float f_atan2f(float y, float x) { return atan2f(y, x); }
static float f_hypotf(float x, float y) { return hypotf(x, y); }
static float f_fminf(float x, float y) { return fminf(x, y); }
static float f_fmaxf(float x, float y) { return fmaxf(x, y); }
static float f_copysignf(float x, float y) { return copysignf(x, y); }
static float f_fmaf(float a, float b, float c) { return fmaf(a, b, c); }

static double fd1(float (*f)(float), float x)
{
  float h = 1e-3f;
  return ((double)f(x + h) - (double)f(x - h)) / (2.0 * h);
}

static void check_d(const char *what, double got, double exact, double fd)
{
  char msg[160];
  snprintf(msg, sizeof msg, "%s (analytic)", what);
  check_close(msg, got, exact, 1e-4);
  snprintf(msg, sizeof msg, "%s (finite difference)", what);
  check_close(msg, got, fd, 1e-2);
}

#define D1(f, x, want) \
  check_d(#f, __enzyme_fwddiff_float((void *)f, enzyme_dup, (x), 1.0f), (want), fd1(f, (x)))

int main(void)
{
  volatile float va = 0.6f, vb = 2.2f, vc = -0.35f;
  float a = va, b = vb, c = vc;
  double A = a, B = b, C = c;

  D1(f_sqrtf, b, 0.5 / sqrt(B));
  D1(f_sinf, b, cos(B));
  D1(f_cosf, a, -sin(A));
  D1(f_tanf, c, 1.0 / (cos(C) * cos(C)));
  D1(f_expf, c, exp(C));
  D1(f_exp2f, b, exp2(B) * log(2.0));
  D1(f_expm1f, a, exp(A));
  D1(f_logf, b, 1.0 / B);
  D1(f_log2f, a, 1.0 / (A * log(2.0)));
  D1(f_log10f, b, 1.0 / (B * log(10.0)));
  D1(f_log1pf, c, 1.0 / (1.0 + C));
  D1(f_asinf, a, 1.0 / sqrt(1.0 - A * A));
  D1(f_acosf, c, -1.0 / sqrt(1.0 - C * C));
  D1(f_atanf, b, 1.0 / (1.0 + B * B));
  D1(f_sinhf, c, cosh(C));
  D1(f_coshf, a, sinh(A));
  D1(f_tanhf, a, 1.0 - tanh(A) * tanh(A));
  D1(f_erff, a, 2.0 / sqrt(acos(-1.0)) * exp(-A * A));
  D1(f_erfcf, c, -2.0 / sqrt(acos(-1.0)) * exp(-C * C));
  D1(f_cbrtf, b, 1.0 / (3.0 * cbrt(B) * cbrt(B)));
  D1(f_fabsf, c, -1.0);
  D1(f_floorf, b, 1.0);

  check_close("powf d/dx", __enzyme_fwddiff_float((void *)f_powf, enzyme_dup, b, 1.0f, enzyme_dup, a, 0.0f),
              A * pow(B, A - 1.0), 1e-4);
  check_close("powf d/dy", __enzyme_fwddiff_float((void *)f_powf, enzyme_dup, b, 0.0f, enzyme_dup, a, 1.0f),
              pow(B, A) * log(B), 1e-4);
  check_close("atan2f d/dy", __enzyme_fwddiff_float((void *)f_atan2f, enzyme_dup, a, 1.0f, enzyme_dup, c, 0.0f),
              C / (A * A + C * C), 1e-4);
  check_close("atan2f d/dx", __enzyme_fwddiff_float((void *)f_atan2f, enzyme_dup, a, 0.0f, enzyme_dup, c, 1.0f),
              -A / (A * A + C * C), 1e-4);
  check_close("hypotf d/dx", __enzyme_fwddiff_float((void *)f_hypotf, enzyme_dup, c, 1.0f, enzyme_const, b),
              C / hypot(C, B), 1e-4);
  check_close("fminf", __enzyme_fwddiff_float((void *)f_fminf, enzyme_dup, a, 2.0f, enzyme_dup, b, 3.0f), 2.0,
              1e-6);
  check_close("fmaxf", __enzyme_fwddiff_float((void *)f_fmaxf, enzyme_dup, a, 2.0f, enzyme_dup, b, 3.0f), 3.0,
              1e-6);
  check_close("copysignf d/dx", __enzyme_fwddiff_float((void *)f_copysignf, enzyme_dup, a, 1.0f, enzyme_dup, c, 0.0f),
              -1.0, 1e-6);
  check_close("fmaf", __enzyme_fwddiff_float((void *)f_fmaf, enzyme_dup, a, 1.0f, enzyme_dup, b, 1.0f,
                                             enzyme_dup, c, 1.0f),
              B + A + 1.0, 1e-5);
  return check_exit();
}
