// RUN: %check-c %s %t
// Forward mode through erf, erfc, cbrt and hypot (both arguments active).
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

static double f_erf(double x) { return erf(x); }
static double f_erfc(double x) { return erfc(x); }
static double f_cbrt(double x) { return cbrt(x); }
static double f_hypot(double x, double y) { return hypot(x, y); }

static double fd1(double (*f)(double), double x)
{
  double h = 1e-6 * fmax(1.0, fabs(x));
  volatile double xp = x + h, xm = x - h;
  return (f(xp) - f(xm)) / (xp - xm);
}

static void check_d(const char *what, double got, double exact, double fd)
{
  char msg[160];
  snprintf(msg, sizeof msg, "%s (analytic)", what);
  check_close(msg, got, exact, 1e-10);
  snprintf(msg, sizeof msg, "%s (finite difference)", what);
  check_close(msg, got, fd, 1e-6);
}

#define D1(f, x, want) \
  check_d(#f, __enzyme_fwddiff((void *)f, enzyme_dup, (x), 1.0), (want), fd1(f, (x)))

int main(void)
{
  volatile double va = 0.45, vb = -1.2, vc = 5.0;
  double a = va, b = vb, c = vc;
  double two_over_sqrtpi = 2.0 / sqrt(acos(-1.0));

  D1(f_erf, a, two_over_sqrtpi * exp(-a * a));
  D1(f_erf, b, two_over_sqrtpi * exp(-b * b));
  D1(f_erfc, a, -two_over_sqrtpi * exp(-a * a));
  D1(f_cbrt, c, 1.0 / (3.0 * cbrt(c) * cbrt(c)));
  D1(f_cbrt, b, 1.0 / (3.0 * cbrt(b) * cbrt(b)));

  /* hypot(x, y): d = (x dx + y dy) / hypot(x, y) */
  double x = b, y = c, r = hypot(x, y);
  check_close("hypot d/dx", __enzyme_fwddiff((void *)f_hypot, enzyme_dup, x, 1.0, enzyme_dup, y, 0.0),
              x / r, 1e-10);
  check_close("hypot d/dy", __enzyme_fwddiff((void *)f_hypot, enzyme_dup, x, 0.0, enzyme_dup, y, 1.0),
              y / r, 1e-10);
  check_close("hypot d/dy, x const", __enzyme_fwddiff((void *)f_hypot, enzyme_const, x, enzyme_dup, y, 1.0),
              y / r, 1e-10);
  double h = 1e-6 * 5.0;
  check_close("hypot along (2,1) vs finite difference",
              __enzyme_fwddiff((void *)f_hypot, enzyme_dup, x, 2.0, enzyme_dup, y, 1.0),
              (hypot(x + 2 * h, y + h) - hypot(x - 2 * h, y - h)) / (2 * h), 1e-6);
  return check_exit();
}
