// RUN: %check-c %s %t
// Long loops over power series, written with compiler builtins, in static
// functions, with an unsigned trip count and a fixed prototype:
// -log(1-x) = sum x^i/i through __builtin_pow (derivative 1/(1-x)),
// atanh(x) = sum x^(2k+1)/(2k+1) through __builtin_powi (1/(1-x^2)), and
// exp through a Horner recurrence with __builtin_fma.
#include <math.h>
#include <stdio.h>
#include "check.h"

double __enzyme_autodiff(void *, double, unsigned);
double __enzyme_fwddiff(void *, ...);

static double neglog1m(double x, unsigned terms)
{
  double s = 0;
  for (int i = 1; i <= terms; i++)
    s += __builtin_pow(x, i) / i;
  return s;
}

static double atanh_series(double x, unsigned terms)
{
  double s = 0;
  for (unsigned k = 0; k < terms; k++)
    s += __builtin_powi(x, (int)(2 * k + 1)) / (2 * k + 1);
  return s;
}

static double exp_horner(double x, unsigned terms)
{
  double p = 1.0;
  for (unsigned k = terms; k > 0; k--)
    p = __builtin_fma(p, x / k, 1.0);
  return p;
}

int main(void)
{
  double x = 0.5;
  check_close("-log(1-x) series, 10000 terms, reverse", __enzyme_autodiff((void *)neglog1m, x, 10000), 1 / (1 - x),
              1e-10);
  check_close("-log(1-x) series, forward", __enzyme_fwddiff((void *)neglog1m, x, 1.0, 10000u), 1 / (1 - x), 1e-10);
  check_close("atanh series, reverse", __enzyme_autodiff((void *)atanh_series, x, 400), 1 / (1 - x * x), 1e-10);
  check_close("atanh series, forward", __enzyme_fwddiff((void *)atanh_series, x, 1.0, 400u), 1 / (1 - x * x),
              1e-10);
  check_close("exp by Horner with fma, reverse", __enzyme_autodiff((void *)exp_horner, 1.3, 30), exp(1.3), 1e-12);
  check_close("exp by Horner with fma, forward", __enzyme_fwddiff((void *)exp_horner, 1.3, 1.0, 30u), exp(1.3),
              1e-12);
  return check_exit();
}
