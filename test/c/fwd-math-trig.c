// RUN: %check-c %s %t
// Forward mode through the libm trigonometric functions and their inverses:
// sin, cos, tan, asin, acos, atan, atan2 (both arguments active).
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

static double f_sin(double x) { return sin(x); }
static double f_cos(double x) { return cos(x); }
static double f_tan(double x) { return tan(x); }
static double f_asin(double x) { return asin(x); }
static double f_acos(double x) { return acos(x); }
static double f_atan(double x) { return atan(x); }
static double f_atan2(double y, double x) { return atan2(y, x); }
/* sin^2 + cos^2 = 1: the tangent must vanish. */
static double f_one(double x) { double s = sin(x), c = cos(x); return s * s + c * c; }

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
  volatile double va = 0.6, vb = 2.2, vc = -0.35;
  double a = va, b = vb, c = vc;

  D1(f_sin, b, cos(b));
  D1(f_cos, a, -sin(a));
  D1(f_tan, c, 1.0 / (cos(c) * cos(c)));
  D1(f_asin, a, 1.0 / sqrt(1.0 - a * a));
  D1(f_acos, c, -1.0 / sqrt(1.0 - c * c));
  D1(f_atan, b, 1.0 / (1.0 + b * b));

  /* atan2(y, x): d = (x dy - y dx) / (x^2 + y^2) */
  double y = a, x = c, r2 = x * x + y * y;
  check_close("atan2 d/dy", __enzyme_fwddiff((void *)f_atan2, enzyme_dup, y, 1.0, enzyme_dup, x, 0.0),
              x / r2, 1e-10);
  check_close("atan2 d/dx", __enzyme_fwddiff((void *)f_atan2, enzyme_dup, y, 0.0, enzyme_dup, x, 1.0),
              -y / r2, 1e-10);
  check_close("atan2 d/dx, x const", __enzyme_fwddiff((void *)f_atan2, enzyme_const, y, enzyme_dup, x, 1.0),
              -y / r2, 1e-10);
  double h = 1e-6;
  check_close("atan2 along (1,-2) vs finite difference",
              __enzyme_fwddiff((void *)f_atan2, enzyme_dup, y, 1.0, enzyme_dup, x, -2.0),
              (atan2(y + h, x - 2 * h) - atan2(y - h, x + 2 * h)) / (2 * h), 1e-6);

  double t = __enzyme_fwddiff((void *)f_one, enzyme_dup, b, 1.0);
  check_close("d(sin^2+cos^2) is 0", t, 0.0, 1e-14);
  return check_exit();
}
