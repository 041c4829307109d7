// RUN: %check-c %s %t
// Forward mode through pow (base and exponent both active, or one of them
// constant) and __builtin_powi (integer exponent, always constant).
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

static double f_pow(double x, double y) { return pow(x, y); }
static double f_cube(double x) { return pow(x, 3.0); }
static double f_powi(double x, int n) { return __builtin_powi(x, n); }
static double f_powi5(double x) { return __builtin_powi(x, 5); }

static double fd2(double (*f)(double, double), double x, double y, double dx,
                  double dy)
{
  double h = 1e-6 * fmax(1.0, fmax(fabs(x), fabs(y)));
  return (f(x + h * dx, y + h * dy) - f(x - h * dx, y - h * dy)) / (2 * h);
}

int main(void)
{
  volatile double vx = 1.7, vy = 2.6, vn = -1.5;
  double x = vx, y = vy, xn = vn;
  double gx = y * pow(x, y - 1.0), gy = pow(x, y) * log(x);

  check_close("pow d/dx", __enzyme_fwddiff((void *)f_pow, enzyme_dup, x, 1.0, enzyme_dup, y, 0.0), gx, 1e-12);
  check_close("pow d/dy", __enzyme_fwddiff((void *)f_pow, enzyme_dup, x, 0.0, enzyme_dup, y, 1.0), gy, 1e-12);
  check_close("pow d/dx, y const", __enzyme_fwddiff((void *)f_pow, enzyme_dup, x, 1.0, enzyme_const, y), gx,
              1e-12);
  check_close("pow d/dy, x const", __enzyme_fwddiff((void *)f_pow, enzyme_const, x, enzyme_dup, y, 1.0), gy,
              1e-12);
  double t = __enzyme_fwddiff((void *)f_pow, enzyme_dup, x, 0.5, enzyme_dup, y, -1.0);
  check_close("pow along (0.5,-1)", t, 0.5 * gx - gy, 1e-12);
  check_close("pow along (0.5,-1) vs finite difference", t, fd2(f_pow, x, y, 0.5, -1.0), 1e-6);

  /* Negative base, integer exponent: only the base may vary. */
  check_close("pow(-1.5, 3) d/dx", __enzyme_fwddiff((void *)f_cube, enzyme_dup, xn, 1.0), 3.0 * xn * xn,
              1e-12);
  /* Zero base, exponent 2 (constant): d/dx = 2 * 0 = 0, not NaN. */
  check_close("pow(0, 2) d/dx", __enzyme_fwddiff((void *)f_pow, enzyme_dup, 0.0, 1.0, enzyme_const, 2.0), 0.0,
              1e-12);

  check_close("powi(x, 3)", __enzyme_fwddiff((void *)f_powi, enzyme_dup, x, 1.0, 3), 3.0 * x * x, 1e-12);
  check_close("powi(x, -2)", __enzyme_fwddiff((void *)f_powi, enzyme_dup, x, 1.0, -2), -2.0 / (x * x * x),
              1e-12);
  check_close("powi(x, 1)", __enzyme_fwddiff((void *)f_powi, enzyme_dup, x, 1.0, 1), 1.0, 1e-12);
  check_close("powi(x, 0)", __enzyme_fwddiff((void *)f_powi, enzyme_dup, x, 1.0, 0), 0.0, 1e-12);
  check_close("powi(-1.5, 5)", __enzyme_fwddiff((void *)f_powi5, enzyme_dup, xn, 1.0), 5.0 * pow(xn, 4),
              1e-12);
  return check_exit();
}
