// RUN: %check-c %s %t
// Forward mode through long double arithmetic (x86_fp80 on x86-64) inside a
// double function: fpext to long double, arithmetic there, fptrunc back.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

/* (x^3 - x) / (x^2 + 1) computed in long double */
static double rational(double x)
{
  long double t = x;
  long double num = t * t * t - t, den = t * t + 1.0L;
  return (double)(num / den);
}

/* A long double accumulator over a double array. */
static double accumulate(const double *v, int n)
{
  long double s = 0.0L;
  for (int i = 0; i < n; i++)
    s += (long double)v[i] * v[i];
  return (double)s;
}

int main(void)
{
  volatile double vx = 0.9;
  double x = vx;
  /* ((3x^2 - 1)(x^2 + 1) - (x^3 - x) 2x) / (x^2 + 1)^2 */
  double den = x * x + 1.0;
  check_close("d rational in long double", __enzyme_fwddiff((void *)rational, enzyme_dup, x, 1.0),
              ((3 * x * x - 1) * den - (x * x * x - x) * 2 * x) / (den * den), 1e-14);
  double v[3] = {1.0, -2.0, 0.5}, dv[3] = {1.0, 1.0, 4.0};
  check_close("d long double accumulator", __enzyme_fwddiff((void *)accumulate, enzyme_dup, v, dv, 3),
              2 * (1.0 - 2.0 + 2.0), 1e-14);
  return check_exit();
}
