// RUN: %check-c %s %t
// enzyme_const on floating-point and pointer arguments: no derivative may
// flow from them, whatever their value, and the other arguments'
// tangents are unaffected.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);
void __enzyme_fwddiffv(void *, ...);

/* x y + sin(y) */
static double f(double x, double y) { return x * y + sin(y); }

/* Polynomial with constant coefficients in memory. */
static double poly(const double *c, int n, double x)
{
  double s = 0.0;
  for (int i = n - 1; i >= 0; i--)
    s = s * x + c[i];
  return s;
}

/* Output array written from a const scalar and a dup one. */
static void fill(double *out, double k, double x, int n)
{
  for (int i = 0; i < n; i++)
    out[i] = k * i + x * x;
}

int main(void)
{
  volatile double vx = 1.5, vy = 0.4;
  double x = vx, y = vy;

  check_close("x const: d/dy", __enzyme_fwddiff((void *)f, enzyme_const, x, enzyme_dup, y, 1.0), x + cos(y),
              1e-14);
  check_close("y const: d/dx", __enzyme_fwddiff((void *)f, enzyme_dup, x, 1.0, enzyme_const, y), y, 1e-14);
  check_close("both const", __enzyme_fwddiff((void *)f, enzyme_const, x, enzyme_const, y), 0.0, 1e-14);
  /* Constant arguments that are literals (foldable). */
  check_close("x const literal", __enzyme_fwddiff((void *)f, enzyme_const, 2.0, enzyme_dup, 0.0, 1.0), 3.0, 1e-14);

  double c[4] = {1.0, -2.0, 0.5, 3.0};
  /* d/dx = c1 + 2 c2 x + 3 c3 x^2 */
  check_close("const coefficients", __enzyme_fwddiff((void *)poly, enzyme_const, c, 4, enzyme_dup, x, 1.0),
              -2.0 + 2 * 0.5 * x + 3 * 3.0 * x * x, 1e-14);

  double out[3], dout[3] = {9.0, 9.0, 9.0};
  __enzyme_fwddiffv((void *)fill, enzyme_dup, out, dout, enzyme_const, 10.0, enzyme_dup, x, 1.0, 3);
  check_close("fill: out[2]", out[2], 20.0 + x * x, 1e-15);
  check_close("fill: dout[0]", dout[0], 2 * x, 1e-15);
  check_close("fill: dout[2] (k const)", dout[2], 2 * x, 1e-15);
  return check_exit();
}
