// RUN: %check-c %s %t
// Reverse mode through while loops whose trip count depends on the active
// value: Newton's iteration for sqrt(a) (stops when converged), doubling
// until a bound is passed, and a do-while. The reverse sweep must run the
// iterations the forward sweep ran, however many.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);

static int newton_steps;

/* Newton for y^2 = a from y = 1 (or a), until the residual is tiny. */
static double newton_sqrt(double a)
{
  double y = a > 1.0 ? a : 1.0;
  int steps = 0;
  while (fabs(y * y - a) > 1e-15 * a) {
    y = 0.5 * (y + a / y);
    if (++steps > 200)
      break;
  }
  newton_steps = steps;
  return y;
}

/* Doubles x until it exceeds 100: x 2^k with k depending on x. */
static double doubling(double x)
{
  while (x < 100.0)
    x = x * 2.0;
  return x;
}

/* do-while: at least one step of x -> x^2 / 2 + x / 4, stops when x is large */
static double do_while(double x)
{
  int k = 0;
  do {
    x = x * x / 2 + x / 4;
    k++;
  } while (x < 10.0 && k < 50);
  return x;
}

int main(void)
{
  double as[] = {0.3, 2.0, 50.0, 1e6};
  int last_steps = -1, different = 0;
  for (int i = 0; i < 4; i++) {
    double a = as[i];
    char what[64];
    double g = __enzyme_autodiff((void *)newton_sqrt, a);
    snprintf(what, sizeof what, "newton sqrt, a = %g", a);
    check_close(what, g, 0.5 / sqrt(a), 1e-8);
    newton_sqrt(a);
    if (last_steps >= 0 && newton_steps != last_steps)
      different = 1;
    last_steps = newton_steps;
  }
  check_true("newton: the trip counts differ between the points", different);

  check_close("doubling, x = 3 (6 doublings)", __enzyme_autodiff((void *)doubling, 3.0), 64.0, 1e-12);
  check_close("doubling, x = 30 (2 doublings)", __enzyme_autodiff((void *)doubling, 30.0), 4.0, 1e-12);
  check_close("doubling, x = 150 (no iteration)", __enzyme_autodiff((void *)doubling, 150.0), 1.0, 1e-12);
  check_close("doubling, x = 0.1 vs central difference", __enzyme_autodiff((void *)doubling, 0.1),
              central_difference(doubling, 0.1), 1e-6);

  double xs[] = {0.5, 2.5, 4.0, 30.0};
  for (int i = 0; i < 4; i++) {
    char what[64];
    snprintf(what, sizeof what, "do-while, x = %g vs central difference", xs[i]);
    check_close(what, __enzyme_autodiff((void *)do_while, xs[i]), central_difference(do_while, xs[i]), 1e-6);
  }
  return check_exit();
}
