// RUN: %check-c %s %t
// Forward mode through less common libm functions: ldexp, scalbn, frexp,
// modf, fdim, remainder, and the inverse hyperbolic functions asinh, acosh,
// atanh.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

static double f_ldexp(double x, int n) { return ldexp(x, n); }
static double f_scalbn(double x, int n) { return scalbn(x, n); }
/* frexp: x = m 2^e, the mantissa scales with x */
static double f_frexp(double x) { int e; double m = frexp(x, &e); return m * e; }
/* modf: fractional part has derivative 1, the integral part 0 */
static double f_modf(double x) { double ip; double fr = modf(x, &ip); return fr * 3.0 + ip * x; }
static double f_fdim(double x, double y) { return fdim(x, y); }
static double f_remainder(double x, double y) { return remainder(x, y); }
static double f_asinh(double x) { return asinh(x); }
static double f_acosh(double x) { return acosh(x); }
static double f_atanh(double x) { return atanh(x); }

int main(void)
{
  volatile double va = 1.375, vb = -0.6, vc = 2.5;
  double a = va, b = vb, c = vc;

  check_close("ldexp(x, 3)", __enzyme_fwddiff((void *)f_ldexp, enzyme_dup, a, 1.0, 3), 8.0, 1e-15);
  check_close("scalbn(x, -2)", __enzyme_fwddiff((void *)f_scalbn, enzyme_dup, a, 1.0, -2), 0.25, 1e-15);
  /* 1.375 = 0.6875 * 2^1: d (m e) = e / 2^e = 0.5 */
  check_close("frexp mantissa", __enzyme_fwddiff((void *)f_frexp, enzyme_dup, a, 1.0), 0.5, 1e-15);
  /* modf(2.5) = 0.5 + 2: d = 3 + 2 */
  check_close("modf", __enzyme_fwddiff((void *)f_modf, enzyme_dup, c, 1.0), 5.0, 1e-15);
  check_close("fdim, x > y", __enzyme_fwddiff((void *)f_fdim, enzyme_dup, a, 1.0, enzyme_dup, b, 2.0), -1.0, 1e-15);
  check_close("fdim, x < y", __enzyme_fwddiff((void *)f_fdim, enzyme_dup, b, 1.0, enzyme_dup, a, 2.0), 0.0, 1e-15);
  /* remainder(2.5 * 3.3 = 8.25, 2.5): 8.25 / 2.5 = 3.3, rounds to 3: d/dy = -3 */
  check_close("remainder d/dy", __enzyme_fwddiff((void *)f_remainder, enzyme_const, 8.25, enzyme_dup, c, 1.0), -3.0,
              1e-15);
  check_close("remainder d/dx", __enzyme_fwddiff((void *)f_remainder, enzyme_dup, 8.25, 1.0, enzyme_const, c), 1.0,
              1e-15);
  check_close("asinh'", __enzyme_fwddiff((void *)f_asinh, enzyme_dup, b, 1.0), 1.0 / sqrt(b * b + 1.0), 1e-12);
  check_close("acosh'", __enzyme_fwddiff((void *)f_acosh, enzyme_dup, c, 1.0), 1.0 / sqrt(c * c - 1.0), 1e-12);
  check_close("atanh'", __enzyme_fwddiff((void *)f_atanh, enzyme_dup, b, 1.0), 1.0 / (1.0 - b * b), 1e-12);
  return check_exit();
}
