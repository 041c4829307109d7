// RUN: %check-c %s %t
// Loops whose reverse sweep needs the value of every iteration: an iterated
// map x <- sin(x) + x / 2 and the logistic map x <- r x (1 - x) with r also
// active. The loop variable is overwritten each iteration, so the forward
// values must be kept (or recomputed) for the reverse.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
typedef struct { double a, b; } Grad2;
Grad2 __enzyme_autodiff_2(void *, ...);

static double iterate(double x, int n)
{
  for (int i = 0; i < n; i++)
    x = sin(x) + x / 2;
  return x;
}

static double logistic(double x, double r, int n)
{
  for (int i = 0; i < n; i++)
    x = r * x * (1.0 - x);
  return x;
}

static double logistic_x(double x) { return logistic(x, 2.9, 12); }
static double logistic_r(double r) { return logistic(0.3, r, 12); }

int main(void)
{
  double x = 0.4, d = 1.0, v = x;
  for (int i = 0; i < 15; i++) {
    d *= cos(v) + 0.5;
    v = sin(v) + v / 2;
  }
  check_close("iterate, n = 15", __enzyme_autodiff((void *)iterate, x, 15), d, 1e-12);

  /* d x_n / d x_0 = prod r (1 - 2 x_k) */
  double r = 2.9, dx = 1.0;
  v = 0.3;
  for (int i = 0; i < 12; i++) {
    dx *= r * (1 - 2 * v);
    v = r * v * (1 - v);
  }
  Grad2 g = __enzyme_autodiff_2((void *)logistic, 0.3, r, 12);
  check_close("logistic: d/dx", g.a, dx, 1e-12);
  check_close("logistic: d/dx vs central difference", g.a, central_difference(logistic_x, 0.3), 1e-6);
  check_close("logistic: d/dr vs central difference", g.b, central_difference(logistic_r, r), 1e-6);
  return check_exit();
}
