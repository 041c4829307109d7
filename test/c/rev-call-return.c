// RUN: %check-c %s %t
// A function whose result is the result of a call, returned as it is: a
// one-line wrapper, a wrapper of a wrapper, a nested call sq(sq(x)), and a
// wrapper of a helper with a loop and a constant integer argument.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);

static double sq(double x) { return x * x; }
static double wrap(double x) { return sq(x); }
static double wrap2(double x) { return wrap(x + 1.0); }
static double nested(double x) { return sq(sq(x)); }

static double sum_sq(double x, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += (x + i) * (x + i);
  return s;
}
static double wrap_loop(double x) { return sum_sq(x, 3); }

int main(void)
{
  volatile double vx = 1.4;
  double x = vx;

  check_close("wrap", __enzyme_autodiff((void *)wrap, x), 2 * x, 1e-13);
  check_close("wrap of wrap", __enzyme_autodiff((void *)wrap2, x), 2 * (x + 1.0), 1e-13);
  check_close("sq(sq(x))", __enzyme_autodiff((void *)nested, x), 4 * x * x * x, 1e-13);
  check_close("wrap of a loop", __enzyme_autodiff((void *)wrap_loop, x), 2 * x + 2 * (x + 1) + 2 * (x + 2),
              1e-13);
  return check_exit();
}
