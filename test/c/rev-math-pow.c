// RUN: %check-c %s %t
// Reverse mode through pow: both arguments active, a constant exponent, a
// constant base, an integer exponent on a negative base, and the square
// via pow(x, 2).
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
typedef struct { double a, b; } Grad2;
Grad2 __enzyme_autodiff_2(void *, ...);

static double f_pow(double x, double y) { return pow(x, y); }
static double f_cube(double x) { return pow(x, 3.0); }
static double f_sq(double x) { return pow(x, 2); }
static double f_inv_sqrt(double x) { return pow(x, -0.5); }
static double f_base2(double x) { return pow(2.0, x); }
/* pow with an integer exponent held in an int */
static double f_ipow(double x, int n) { return pow(x, n); }

int main(void)
{
  volatile double vx = 1.7, vy = 2.3;
  double x = vx, y = vy;

  Grad2 g = __enzyme_autodiff_2((void *)f_pow, enzyme_out, x, enzyme_out, y);
  check_close("pow: d/dx", g.a, y * pow(x, y - 1), 1e-12);
  check_close("pow: d/dy", g.b, pow(x, y) * log(x), 1e-12);
  check_close("pow, y const: d/dx", __enzyme_autodiff((void *)f_pow, enzyme_out, x, enzyme_const, y),
              y * pow(x, y - 1), 1e-12);
  check_close("pow, x const: d/dy", __enzyme_autodiff((void *)f_pow, enzyme_const, x, enzyme_out, y),
              pow(x, y) * log(x), 1e-12);

  check_close("pow(x, 3)", __enzyme_autodiff((void *)f_cube, x), 3 * x * x, 1e-12);
  check_close("pow(x, 3) at a negative x", __enzyme_autodiff((void *)f_cube, -x), 3 * x * x, 1e-12);
  check_close("pow(x, 2)", __enzyme_autodiff((void *)f_sq, x), 2 * x, 1e-12);
  check_close("pow(x, -0.5)", __enzyme_autodiff((void *)f_inv_sqrt, x), -0.5 * pow(x, -1.5), 1e-12);
  check_close("pow(x, -0.5) vs central difference", __enzyme_autodiff((void *)f_inv_sqrt, x),
              central_difference(f_inv_sqrt, x), 1e-6);
  check_close("pow(2, x)", __enzyme_autodiff((void *)f_base2, x), pow(2.0, x) * log(2.0), 1e-12);
  check_close("pow(x, n), n = 4", __enzyme_autodiff((void *)f_ipow, -x, 4), -4 * x * x * x, 1e-12);
  check_close("pow(x, n), n = -2", __enzyme_autodiff((void *)f_ipow, x, -2), -2 / (x * x * x), 1e-12);
  return check_exit();
}
