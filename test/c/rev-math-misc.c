// RUN: %check-c %s %t
// Reverse mode through fabs fmin fmax (which argument wins gets the
// gradient), hyperbolic functions, erf, erfc and hypot, fma.
#include <math.h>
#include <stdio.h>
#include "check.h"

#define PI 3.14159265358979323846

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
typedef struct { double a, b; } Grad2;
Grad2 __enzyme_autodiff_2(void *, ...);

static double f_fabs(double x) { return fabs(x) * 3.0; }
static double f_fmin(double x, double y) { return fmin(x * 2.0, y * y); }
static double f_fmax(double x, double y) { return fmax(x * 2.0, y * y); }
static double f_sinh(double x) { return sinh(x); }
static double f_cosh(double x) { return cosh(x); }
static double f_tanh(double x) { return tanh(x); }
static double f_erf(double x) { return erf(x); }
static double f_erfc(double x) { return erfc(x); }
static double f_hypot(double x, double y) { return hypot(x, y); }
static double f_fma(double x, double y) { return fma(x, y, x * x); }

#define CHECK1(name, f, x, want)                                                         \
  do {                                                                                  \
    double g_ = __enzyme_autodiff((void *)f, enzyme_out, x);                             \
    check_close(name, g_, want, 1e-12);                                                  \
    check_close(name " vs central difference", g_, central_difference(f, x), 1e-6);      \
  } while (0)

int main(void)
{
  volatile double vx = 0.8, vy = 1.5;
  double x = vx, y = vy;

  CHECK1("fabs, positive", f_fabs, x, 3.0);
  CHECK1("fabs, negative", f_fabs, -x, -3.0);
  CHECK1("sinh", f_sinh, x, cosh(x));
  CHECK1("cosh", f_cosh, x, sinh(x));
  CHECK1("tanh", f_tanh, x, 1 - tanh(x) * tanh(x));
  CHECK1("erf", f_erf, x, 2 / sqrt(PI) * exp(-x * x));
  CHECK1("erfc", f_erfc, x, -2 / sqrt(PI) * exp(-x * x));

  /* 2x = 1.6 < y^2 = 2.25: fmin takes the first, fmax the second. */
  Grad2 g = __enzyme_autodiff_2((void *)f_fmin, enzyme_out, x, enzyme_out, y);
  check_close("fmin, first smaller: d/dx", g.a, 2.0, 1e-12);
  check_close("fmin, first smaller: d/dy", g.b, 0.0, 1e-12);
  g = __enzyme_autodiff_2((void *)f_fmax, enzyme_out, x, enzyme_out, y);
  check_close("fmax, second larger: d/dx", g.a, 0.0, 1e-12);
  check_close("fmax, second larger: d/dy", g.b, 2 * y, 1e-12);
  /* 2x = 3.2 > y^2 = 2.25 the other way round. */
  g = __enzyme_autodiff_2((void *)f_fmin, enzyme_out, 2 * x, enzyme_out, y);
  check_close("fmin, second smaller: d/dx", g.a, 0.0, 1e-12);
  check_close("fmin, second smaller: d/dy", g.b, 2 * y, 1e-12);
  g = __enzyme_autodiff_2((void *)f_fmax, enzyme_out, 2 * x, enzyme_out, y);
  check_close("fmax, first larger: d/dx", g.a, 2.0, 1e-12);
  check_close("fmax, first larger: d/dy", g.b, 0.0, 1e-12);

  double r = hypot(x, y);
  g = __enzyme_autodiff_2((void *)f_hypot, enzyme_out, x, enzyme_out, y);
  check_close("hypot: d/dx", g.a, x / r, 1e-12);
  check_close("hypot: d/dy", g.b, y / r, 1e-12);
  g = __enzyme_autodiff_2((void *)f_fma, enzyme_out, x, enzyme_out, y);
  check_close("fma: d/dx", g.a, y + 2 * x, 1e-12);
  check_close("fma: d/dy", g.b, x, 1e-12);
  return check_exit();
}
