// RUN: %check-c %s %t
// Arguments without markers: a floating-point argument is dup (its value,
// then its tangent, follow), an integer argument is constant. Markers and
// unmarked arguments mix in one call.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

/* x^n y */
static double f(double x, int n, double y)
{
  double p = 1.0;
  for (int i = 0; i < n; i++)
    p *= x;
  return p * y;
}

static double g(long k, double x, unsigned char c) { return x * x * (double)k + c; }

int main(void)
{
  volatile double vx = 1.3, vy = -0.5;
  double x = vx, y = vy;

  check_close("all unmarked, seed x", __enzyme_fwddiff((void *)f, x, 1.0, 3, y, 0.0), 3 * x * x * y, 1e-14);
  check_close("all unmarked, seed y", __enzyme_fwddiff((void *)f, x, 0.0, 3, y, 1.0), x * x * x, 1e-14);
  check_close("all unmarked, seed both", __enzyme_fwddiff((void *)f, x, 2.0, 3, y, 1.0),
              6 * x * x * y + x * x * x, 1e-14);
  check_close("mixed markers", __enzyme_fwddiff((void *)f, enzyme_const, x, 3, y, 1.0), x * x * x, 1e-14);
  check_close("mixed markers 2", __enzyme_fwddiff((void *)f, x, 1.0, 3, enzyme_const, y), 3 * x * x * y, 1e-14);
  check_close("long and char constant", __enzyme_fwddiff((void *)g, 4L, x, 1.0, (unsigned char)200), 8 * x,
              1e-14);
  return check_exit();
}
