// RUN: %check-c %s %t
// Reverse mode on scalar arithmetic: + - * / and negation, with one and two
// active scalars. The gradients are compared with the analytic ones and with
// central differences of the primal.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
typedef struct { double a, b; } Grad2;
Grad2 __enzyme_autodiff_2(void *, ...);

static double f_add(double x, double y) { return x + y + 2.0; }
static double f_sub(double x, double y) { return x - 3.0 * y - 1.0; }
static double f_mul(double x, double y) { return x * y * x; }
static double f_div(double x, double y) { return x / y; }
static double f_neg(double x) { return -x * x - (-x); }
static double f_recip(double x) { return 1.0 / (x * x + 1.0); }
/* (x + y)(x - y) / (1 + x^2) */
static double f_mix(double x, double y) { return (x + y) * (x - y) / (1.0 + x * x); }
/* The same value used many times */
static double f_poly(double x) { return ((2.0 * x - 3.0) * x + 0.5) * x - 7.0; }

/* Central difference of a two-argument function in argument `which`. */
static double fd2(double (*f)(double, double), double x, double y, int which)
{
  if (which == 0) {
    double h = central_difference_step(x);
    return (f(x + h, y) - f(x - h, y)) / (2 * h);
  }
  double h = central_difference_step(y);
  return (f(x, y + h) - f(x, y - h)) / (2 * h);
}

static void check2(const char *name, double (*f)(double, double), Grad2 g, double x, double y, double wx,
                   double wy)
{
  char what[96];
  snprintf(what, sizeof what, "%s: d/dx", name);
  check_close(what, g.a, wx, 1e-12);
  snprintf(what, sizeof what, "%s: d/dy", name);
  check_close(what, g.b, wy, 1e-12);
  snprintf(what, sizeof what, "%s: d/dx vs central difference", name);
  check_close(what, g.a, fd2(f, x, y, 0), 1e-6);
  snprintf(what, sizeof what, "%s: d/dy vs central difference", name);
  check_close(what, g.b, fd2(f, x, y, 1), 1e-6);
}

int main(void)
{
  volatile double vx = 1.7, vy = -0.6;
  double x = vx, y = vy;

  check2("add", f_add, __enzyme_autodiff_2((void *)f_add, enzyme_out, x, enzyme_out, y), x, y, 1.0, 1.0);
  check2("sub", f_sub, __enzyme_autodiff_2((void *)f_sub, enzyme_out, x, enzyme_out, y), x, y, 1.0, -3.0);
  check2("mul", f_mul, __enzyme_autodiff_2((void *)f_mul, enzyme_out, x, enzyme_out, y), x, y, 2 * x * y, x * x);
  check2("div", f_div, __enzyme_autodiff_2((void *)f_div, enzyme_out, x, enzyme_out, y), x, y, 1 / y,
         -x / (y * y));
  double v = 1 + x * x;
  check2("mix", f_mix, __enzyme_autodiff_2((void *)f_mix, enzyme_out, x, enzyme_out, y), x, y,
         2 * x * (1 + y * y) / (v * v), -2 * y / v);

  check_close("neg", __enzyme_autodiff((void *)f_neg, enzyme_out, x), -2 * x + 1, 1e-12);
  check_close("neg vs central difference", __enzyme_autodiff((void *)f_neg, enzyme_out, x),
              central_difference(f_neg, x), 1e-6);
  check_close("recip", __enzyme_autodiff((void *)f_recip, enzyme_out, x), -2 * x / (v * v), 1e-12);
  check_close("recip vs central difference", __enzyme_autodiff((void *)f_recip, enzyme_out, x),
              central_difference(f_recip, x), 1e-6);
  check_close("poly", __enzyme_autodiff((void *)f_poly, enzyme_out, x), 6 * x * x - 6 * x + 0.5, 1e-12);
  check_close("poly at y", __enzyme_autodiff((void *)f_poly, enzyme_out, y), 6 * y * y - 6 * y + 0.5, 1e-12);
  check_close("poly vs central difference", __enzyme_autodiff((void *)f_poly, enzyme_out, x),
              central_difference(f_poly, x), 1e-6);
  return check_exit();
}
