// RUN: %check-c %s %t
// Forward mode through sinh, cosh, tanh.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

static double f_sinh(double x) { return sinh(x); }
static double f_cosh(double x) { return cosh(x); }
static double f_tanh(double x) { return tanh(x); }
/* cosh^2 - sinh^2 = 1 */
static double f_one(double x) { double s = sinh(x), c = cosh(x); return c * c - s * s; }

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
  volatile double va = 0.8, vb = -1.7;
  double a = va, b = vb;
  D1(f_sinh, a, cosh(a));
  D1(f_sinh, b, cosh(b));
  D1(f_cosh, a, sinh(a));
  D1(f_cosh, b, sinh(b));
  D1(f_tanh, a, 1.0 - tanh(a) * tanh(a));
  D1(f_tanh, b, 1.0 / (cosh(b) * cosh(b)));
  double t = __enzyme_fwddiff((void *)f_one, enzyme_dup, a, 1.0);
  check_close("d(cosh^2-sinh^2) is 0", t, 0.0, 1e-13);
  return check_exit();
}
