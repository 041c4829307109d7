// RUN: %check-c %s %t
// Math written with clang's __builtin_ functions (which may become LLVM
// intrinsics or library calls), in static helpers: sin, cos, exp, log,
// sqrt, pow, fabs, fma, fmax, fmin, copysign, hypot, atan2, cbrt, expm1,
// log1p, tanh, and their float variants; __builtin_expect in a branch and
// __builtin_memcpy and __builtin_memset on active memory. Every derivative
// is compared in both modes against a central difference (the float ones
// against the exact derivative).
#include <math.h>
#include <stdio.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static double b1(double x) { return __builtin_sin(x) * __builtin_cos(2 * x) + __builtin_exp(-x) * __builtin_log(x); }
static double b2(double x) { return __builtin_sqrt(x) + __builtin_pow(x, 2.5) + __builtin_fabs(x - 3.0); }
static double b3(double x) { return __builtin_fma(x, x, 1.0) + __builtin_fmax(x, 0.5) + __builtin_fmin(2 * x, 3.0); }
static double b4(double x) { return __builtin_copysign(x * x, -1.0) + __builtin_hypot(x, 2.0) + __builtin_atan2(x, 1.5); }
static double b5(double x) { return __builtin_cbrt(x) + __builtin_expm1(x) + __builtin_log1p(x) + __builtin_tanh(x); }
static double b6(double x)
{
  float f = (float)x;
  return (double)(__builtin_sinf(f) * __builtin_expf(f) + __builtin_sqrtf(f) + __builtin_powf(f, 3.0f));
}
static double b7(double x)
{
  if (__builtin_expect(x > 0.0, 1))
    return x * x * x;
  return -x;
}
static double b8(double x)
{
  double a[4], b[4];
  __builtin_memset(b, 0, sizeof b);
  for (int i = 0; i < 4; i++)
    a[i] = x * (i + 1);
  __builtin_memcpy(b + 1, a, 3 * sizeof(double));
  return b[0] + b[1] * b[2] + b[3];
}

int main(void)
{
  static const double xs[] = {0.4, 1.3, 2.2};
  char what[64];
  for (unsigned k = 0; k < sizeof xs / sizeof *xs; k++) {
    double x = xs[k];
    check_both_modes(b1, x, 1e-7);
    check_both_modes(b2, x, 1e-7);
    check_both_modes(b3, x, 1e-7);
    check_both_modes(b4, x, 1e-7);
    check_both_modes(b5, x, 1e-7);
    {
      /* float precision: compare with the exact derivative */
      float f = (float)x;
      double want = (cos(f) + sin(f)) * exp(f) + 0.5 / sqrt(f) + 3.0 * f * f;
      snprintf(what, sizeof what, "b6 (float builtins) at %g, reverse", x);
      check_close(what, __enzyme_autodiff((void *)b6, x), want, 1e-5);
      snprintf(what, sizeof what, "b6 (float builtins) at %g, forward", x);
      check_close(what, __enzyme_fwddiff((void *)b6, x, 1.0), want, 1e-5);
    }
    check_both_modes(b7, x, 1e-7);
    check_both_modes(b8, x, 1e-7);
  }
  return check_exit();
}
