// RUN: %check-c %s %t
// Reverse mode through conversions: double -> float -> double carries the
// derivative (in float precision), mixed float/double arithmetic, and a
// conversion to an integer stops it.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);

/* (float)x squared in float, back to double: 2x */
static double through_float(double x)
{
  float t = (float)x;
  return (double)(t * t);
}

/* mixed: a float temporary times a double: d/dx (3x)(x) = 6x */
static double mixed(double x)
{
  float t = (float)(3.0 * x);
  return t * x;
}

/* x * floor-by-cast: k = (int)x is constant, derivative k */
static double int_cast(double x)
{
  int k = (int)x;
  return x * k + (double)k * k;
}

/* long and unsigned conversions of a non-differentiable quantity */
static double long_cast(double x)
{
  long k = (long)(x * 4.0);
  unsigned u = (unsigned)k;
  return x * x * (double)u;
}

int main(void)
{
  volatile double vx = 2.3;
  double x = vx;

  check_close("through float", __enzyme_autodiff((void *)through_float, enzyme_out, x), 2 * x, 1e-6);
  check_close("mixed float/double", __enzyme_autodiff((void *)mixed, enzyme_out, x), 6 * x, 1e-6);
  check_close("int cast", __enzyme_autodiff((void *)int_cast, enzyme_out, x), 2.0, 1e-12);
  check_close("int cast, negative", __enzyme_autodiff((void *)int_cast, enzyme_out, -x), -2.0, 1e-12);
  check_close("long/unsigned cast", __enzyme_autodiff((void *)long_cast, enzyme_out, x), 2 * x * 9.0, 1e-12);
  check_close("int cast vs central difference", __enzyme_autodiff((void *)int_cast, enzyme_out, x),
              central_difference(int_cast, x), 1e-6);
  return check_exit();
}
