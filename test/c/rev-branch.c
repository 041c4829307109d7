// RUN: %check-c %s %t
// Reverse mode through branches: if/else on the active value, a ternary
// (select), a branch on a constant integer flag, and a value merged from
// three paths (phi).
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
typedef struct { double a, b; } Grad2;
Grad2 __enzyme_autodiff_2(void *, ...);

/* x > 0: x^2 sin(x); else -3x + exp(x) */
static double if_else(double x)
{
  double r;
  if (x > 0)
    r = x * x * sin(x);
  else
    r = -3.0 * x + exp(x);
  return r;
}

/* x < y ? x y : x + y */
static double ternary(double x, double y) { return x < y ? x * y : x + y; }

/* A leaky ReLU written with a select on both values */
static double leaky(double x) { return x > 0 ? x : 0.1 * x; }

/* The flag picks the formula. */
static double flagged(double x, int flag)
{
  if (flag)
    return x * x * x;
  return 5.0 * x;
}

/* Three regions merge into one value, then used once more. */
static double three_way(double x)
{
  double t;
  if (x < -1.0)
    t = x * x;
  else if (x < 1.0)
    t = sin(x);
  else
    t = log(x) + 1.0;
  return t * x;
}

int main(void)
{
  volatile double vx = 0.7;
  double x = vx;

  check_close("if, then side", __enzyme_autodiff((void *)if_else, x), 2 * x * sin(x) + x * x * cos(x), 1e-12);
  check_close("if, else side", __enzyme_autodiff((void *)if_else, -x), -3.0 + exp(-x), 1e-12);
  check_close("if vs central difference", __enzyme_autodiff((void *)if_else, x), central_difference(if_else, x),
              1e-6);

  Grad2 g = __enzyme_autodiff_2((void *)ternary, x, 2.0);
  check_close("ternary, x < y: d/dx", g.a, 2.0, 1e-12);
  check_close("ternary, x < y: d/dy", g.b, x, 1e-12);
  g = __enzyme_autodiff_2((void *)ternary, 3.0, 2.0);
  check_close("ternary, x >= y: d/dx", g.a, 1.0, 1e-12);
  check_close("ternary, x >= y: d/dy", g.b, 1.0, 1e-12);

  check_close("leaky, positive", __enzyme_autodiff((void *)leaky, x), 1.0, 1e-12);
  check_close("leaky, negative", __enzyme_autodiff((void *)leaky, -x), 0.1, 1e-12);

  check_close("flag set", __enzyme_autodiff((void *)flagged, x, 1), 3 * x * x, 1e-12);
  check_close("flag clear", __enzyme_autodiff((void *)flagged, x, enzyme_const, 0), 5.0, 1e-12);

  check_close("three-way, low", __enzyme_autodiff((void *)three_way, -2.0), 3 * 4.0, 1e-12);
  check_close("three-way, middle", __enzyme_autodiff((void *)three_way, x), sin(x) + x * cos(x), 1e-12);
  check_close("three-way, high", __enzyme_autodiff((void *)three_way, 2.5), log(2.5) + 2.0, 1e-12);
  check_close("three-way vs central difference", __enzyme_autodiff((void *)three_way, 2.5),
              central_difference(three_way, 2.5), 1e-6);
  return check_exit();
}
