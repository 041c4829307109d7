// RUN: %check-c %s %t
// Reverse mode through trigonometric functions: sin cos tan asin acos atan
// and atan2 (two active arguments), alone and composed.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
typedef struct { double a, b; } Grad2;
Grad2 __enzyme_autodiff_2(void *, ...);

static double f_sin(double x) { return sin(x); }
static double f_cos(double x) { return cos(x); }
static double f_tan(double x) { return tan(x); }
static double f_asin(double x) { return asin(x); }
static double f_acos(double x) { return acos(x); }
static double f_atan(double x) { return atan(x); }
/* sin(cos(x)) * x */
static double f_comp(double x) { return sin(cos(x)) * x; }
static double f_atan2(double y, double x) { return atan2(y, x); }

/* Analytic and finite-difference checks of a one-argument function. */
#define CHECK1(name, f, x, want)                                                         \
  do {                                                                                  \
    double g_ = __enzyme_autodiff((void *)f, enzyme_out, x);                             \
    check_close(name, g_, want, 1e-12);                                                  \
    check_close(name " vs central difference", g_, central_difference(f, x), 1e-6);      \
  } while (0)

int main(void)
{
  volatile double vx = 0.45;
  double x = vx;

  CHECK1("sin", f_sin, x, cos(x));
  CHECK1("cos", f_cos, x, -sin(x));
  CHECK1("tan", f_tan, x, 1 / (cos(x) * cos(x)));
  CHECK1("asin", f_asin, x, 1 / sqrt(1 - x * x));
  CHECK1("acos", f_acos, x, -1 / sqrt(1 - x * x));
  CHECK1("atan", f_atan, x, 1 / (1 + x * x));
  CHECK1("atan at 3", f_atan, 3.0, 0.1);
  CHECK1("sin(cos(x)) x", f_comp, x, sin(cos(x)) - x * cos(cos(x)) * sin(x));

  /* atan2(y, x) in several quadrants: (x / r^2, -y / r^2) */
  double pts[4][2] = {{0.5, 2.0}, {1.5, -0.5}, {-0.7, -1.2}, {-2.0, 0.3}};
  for (int i = 0; i < 4; i++) {
    double y = pts[i][0], xx = pts[i][1], r2 = xx * xx + y * y;
    char what[64];
    Grad2 g;
    /* one call site per quadrant is enough: the loop runs the same request */
    g = __enzyme_autodiff_2((void *)f_atan2, enzyme_out, y, enzyme_out, xx);
    snprintf(what, sizeof what, "atan2 point %d: d/dy", i);
    check_close(what, g.a, xx / r2, 1e-12);
    snprintf(what, sizeof what, "atan2 point %d: d/dx", i);
    check_close(what, g.b, -y / r2, 1e-12);
  }
  return check_exit();
}
