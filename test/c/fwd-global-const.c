// RUN: %check-c %s %t
// Forward mode through functions that read constant global data (a
// coefficient table, a lookup of a global scalar): globals are inactive.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

static const double coef[5] = {1.0, -0.5, 0.25, 2.0, -1.0};
double fwd_global_scale = 3.0; /* mutable global, read only here */

/* Horner evaluation of sum coef[i] x^i, times a global scale */
static double horner(double x)
{
  double s = 0.0;
  for (int i = 4; i >= 0; i--)
    s = s * x + coef[i];
  return s * fwd_global_scale;
}

int main(void)
{
  volatile double vx = 0.9;
  double x = vx;
  double want = 0.0;
  for (int i = 1; i < 5; i++)
    want += i * coef[i] * pow(x, i - 1);
  check_close("d horner", __enzyme_fwddiff((void *)horner, enzyme_dup, x, 1.0), want * fwd_global_scale, 1e-13);
  fwd_global_scale = -2.0;
  check_close("d horner after changing the global", __enzyme_fwddiff((void *)horner, enzyme_dup, x, 1.0),
              want * -2.0, 1e-13);
  return check_exit();
}
