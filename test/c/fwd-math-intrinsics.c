// RUN: %check-c %s %t
// Forward mode through the LLVM math intrinsics themselves (llvm.sin,
// llvm.exp, llvm.pow, llvm.minnum, llvm.maximum, ...), which clang emits for
// __builtin_elementwise_* whatever the errno setting.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

static double i_sqrt(double x) { return __builtin_elementwise_sqrt(x); }
static double i_sin(double x) { return __builtin_elementwise_sin(x); }
static double i_cos(double x) { return __builtin_elementwise_cos(x); }
static double i_tan(double x) { return __builtin_elementwise_tan(x); }
static double i_exp(double x) { return __builtin_elementwise_exp(x); }
static double i_exp2(double x) { return __builtin_elementwise_exp2(x); }
static double i_exp10(double x) { return __builtin_elementwise_exp10(x); }
static double i_log(double x) { return __builtin_elementwise_log(x); }
static double i_log2(double x) { return __builtin_elementwise_log2(x); }
static double i_log10(double x) { return __builtin_elementwise_log10(x); }
static double i_asin(double x) { return __builtin_elementwise_asin(x); }
static double i_acos(double x) { return __builtin_elementwise_acos(x); }
static double i_atan(double x) { return __builtin_elementwise_atan(x); }
static double i_sinh(double x) { return __builtin_elementwise_sinh(x); }
static double i_cosh(double x) { return __builtin_elementwise_cosh(x); }
static double i_tanh(double x) { return __builtin_elementwise_tanh(x); }
static double i_abs(double x) { return __builtin_elementwise_abs(x); }
static double i_round_sum(double x)
{
  return x + __builtin_elementwise_floor(x) + __builtin_elementwise_ceil(x) +
         __builtin_elementwise_trunc(x) + __builtin_elementwise_round(x) +
         __builtin_elementwise_rint(x) + __builtin_elementwise_nearbyint(x) +
         __builtin_elementwise_roundeven(x);
}
static double i_pow(double x, double y) { return __builtin_elementwise_pow(x, y); }
static double i_atan2(double y, double x) { return __builtin_elementwise_atan2(y, x); }
static double i_minnum(double x, double y) { return __builtin_elementwise_min(x, y); }
static double i_maxnum(double x, double y) { return __builtin_elementwise_max(x, y); }
static double i_minimum(double x, double y) { return __builtin_elementwise_minimum(x, y); }
static double i_maximum(double x, double y) { return __builtin_elementwise_maximum(x, y); }
static double i_copysign(double x, double y) { return __builtin_elementwise_copysign(x, y); }
static double i_fma(double a, double b, double c) { return __builtin_elementwise_fma(a, b, c); }

#define D1(f, x, want) \
  check_close(#f, __enzyme_fwddiff((void *)f, enzyme_dup, (x), 1.0), (want), 1e-10)

int main(void)
{
  volatile double va = 0.6, vb = 2.2, vc = -0.35;
  double a = va, b = vb, c = vc;

  D1(i_sqrt, b, 0.5 / sqrt(b));
  D1(i_sin, b, cos(b));
  D1(i_cos, a, -sin(a));
  D1(i_tan, c, 1.0 / (cos(c) * cos(c)));
  D1(i_exp, c, exp(c));
  D1(i_exp2, b, exp2(b) * log(2.0));
  D1(i_exp10, a, pow(10.0, a) * log(10.0));
  D1(i_log, b, 1.0 / b);
  D1(i_log2, a, 1.0 / (a * log(2.0)));
  D1(i_log10, b, 1.0 / (b * log(10.0)));
  D1(i_asin, a, 1.0 / sqrt(1.0 - a * a));
  D1(i_acos, c, -1.0 / sqrt(1.0 - c * c));
  D1(i_atan, b, 1.0 / (1.0 + b * b));
  D1(i_sinh, c, cosh(c));
  D1(i_cosh, a, sinh(a));
  D1(i_tanh, a, 1.0 - tanh(a) * tanh(a));
  D1(i_abs, c, -1.0);
  D1(i_round_sum, b, 1.0);

  check_close("llvm.pow d/dx", __enzyme_fwddiff((void *)i_pow, enzyme_dup, b, 1.0, enzyme_dup, a, 0.0),
              a * pow(b, a - 1.0), 1e-10);
  check_close("llvm.pow d/dy", __enzyme_fwddiff((void *)i_pow, enzyme_dup, b, 0.0, enzyme_dup, a, 1.0),
              pow(b, a) * log(b), 1e-10);
  check_close("llvm.atan2 d/dy", __enzyme_fwddiff((void *)i_atan2, enzyme_dup, a, 1.0, enzyme_dup, c, 0.0),
              c / (a * a + c * c), 1e-10);
  check_close("llvm.atan2 d/dx", __enzyme_fwddiff((void *)i_atan2, enzyme_dup, a, 0.0, enzyme_dup, c, 1.0),
              -a / (a * a + c * c), 1e-10);
  check_close("llvm.minnum", __enzyme_fwddiff((void *)i_minnum, enzyme_dup, a, 2.0, enzyme_dup, c, 3.0), 3.0, 1e-15);
  check_close("llvm.maxnum", __enzyme_fwddiff((void *)i_maxnum, enzyme_dup, a, 2.0, enzyme_dup, c, 3.0), 2.0, 1e-15);
  check_close("llvm.minimum", __enzyme_fwddiff((void *)i_minimum, enzyme_dup, b, 2.0, enzyme_dup, a, 3.0), 3.0,
              1e-15);
  check_close("llvm.maximum", __enzyme_fwddiff((void *)i_maximum, enzyme_dup, b, 2.0, enzyme_dup, a, 3.0), 2.0,
              1e-15);
  check_close("llvm.copysign d/dx", __enzyme_fwddiff((void *)i_copysign, enzyme_dup, b, 1.0, enzyme_dup, c, 1.0),
              -1.0, 1e-15);
  check_close("llvm.fma", __enzyme_fwddiff((void *)i_fma, enzyme_dup, a, 1.0, enzyme_dup, b, 2.0, enzyme_dup, c, 4.0),
              b + 2.0 * a + 4.0, 1e-14);
  return check_exit();
}
