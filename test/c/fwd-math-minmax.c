// RUN: %check-c %s %t
// Forward mode through fabs, fma, fmin, fmax (llvm.minnum / llvm.maxnum)
// and copysign.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

static double f_fabs(double x) { return fabs(x); }
static double f_fma(double a, double b, double c) { return fma(a, b, c); }
static double f_fmin(double x, double y) { return fmin(x, y); }
static double f_fmax(double x, double y) { return fmax(x, y); }
static double f_copysign(double x, double y) { return copysign(x, y); }
/* fabs of an active expression */
static double f_fabs_expr(double x) { return fabs(x * x - 4.0); }

int main(void)
{
  volatile double va = -1.25, vb = 3.5, vc = 0.75;
  double a = va, b = vb, c = vc;

  check_close("fabs'(-1.25)", __enzyme_fwddiff((void *)f_fabs, enzyme_dup, a, 1.0), -1.0, 1e-15);
  check_close("fabs'(3.5)", __enzyme_fwddiff((void *)f_fabs, enzyme_dup, b, 2.0), 2.0, 1e-15);
  /* |x^2 - 4| at x = 0.75: 4 - x^2, derivative -2x */
  check_close("d |x^2-4|", __enzyme_fwddiff((void *)f_fabs_expr, enzyme_dup, c, 1.0), -2 * c, 1e-15);

  check_close("fma all dup",
              __enzyme_fwddiff((void *)f_fma, enzyme_dup, a, 1.0, enzyme_dup, b, 2.0, enzyme_dup, c, 3.0),
              1.0 * b + a * 2.0 + 3.0, 1e-14);
  check_close("fma d/db only", __enzyme_fwddiff((void *)f_fma, enzyme_const, a, enzyme_dup, b, 1.0, enzyme_const, c),
              a, 1e-14);

  check_close("fmin picks x", __enzyme_fwddiff((void *)f_fmin, enzyme_dup, a, 2.0, enzyme_dup, b, 5.0), 2.0, 1e-15);
  check_close("fmin picks y", __enzyme_fwddiff((void *)f_fmin, enzyme_dup, b, 2.0, enzyme_dup, a, 5.0), 5.0, 1e-15);
  check_close("fmax picks x", __enzyme_fwddiff((void *)f_fmax, enzyme_dup, b, 2.0, enzyme_dup, a, 5.0), 2.0, 1e-15);
  check_close("fmax picks y", __enzyme_fwddiff((void *)f_fmax, enzyme_dup, a, 2.0, enzyme_dup, b, 5.0), 5.0, 1e-15);

  /* copysign(x, y) = |x| sgn(y): d/dx = sgn(x) sgn(y), d/dy = 0 */
  check_close("copysign(-1.25, 3.5) d/dx",
              __enzyme_fwddiff((void *)f_copysign, enzyme_dup, a, 1.0, enzyme_dup, b, 0.0), -1.0, 1e-15);
  check_close("copysign(3.5, -1.25) d/dx",
              __enzyme_fwddiff((void *)f_copysign, enzyme_dup, b, 1.0, enzyme_dup, a, 0.0), -1.0, 1e-15);
  check_close("copysign(3.5, 0.75) d/dx",
              __enzyme_fwddiff((void *)f_copysign, enzyme_dup, b, 1.0, enzyme_dup, c, 0.0), 1.0, 1e-15);
  check_close("copysign(-1.25, -0.75) d/dx",
              __enzyme_fwddiff((void *)f_copysign, enzyme_dup, a, 1.0, enzyme_dup, -c, 0.0), 1.0, 1e-15);
  check_close("copysign d/dy is 0",
              __enzyme_fwddiff((void *)f_copysign, enzyme_dup, b, 0.0, enzyme_dup, c, 1.0), 0.0, 1e-15);
  return check_exit();
}
