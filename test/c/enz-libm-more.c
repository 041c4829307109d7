// RUN: %check-c %s %t
// Less common libm functions in both modes, each against a central
// difference: Bessel functions j0, j1, jn, y0, y1, the gamma functions
// lgamma and tgamma, and sincos; and functions that return integers or
// piecewise-constant values of an active argument (lround, lrint, ilogb,
// logb), which only contribute zero derivatives and must not stop
// differentiation.
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

double bessel(double x) { return j0(x) + 2 * j1(x) + jn(3, x) + y0(x) * y1(x); }
double gammas(double x) { return lgamma(x) + tgamma(x) * 0.5; }
double sc(double x)
{
  double s, c;
  sincos(x, &s, &c);
  return s * c + s;
}
/* The scales keep the sampled points off the jumps, where a central
 * difference means nothing (x * 5 would be 8.5 at 1.7: lrint jumps there). */
double steps(double x)
{
  long r = lround(x * 3.0);
  long q = lrint(x * 4.0);
  int e = ilogb(x);
  double b = logb(x * 7.0);
  return x * x * (double)(r + q + e) + b;
}

int main(void)
{
  static const double xs[] = {0.8, 1.7, 3.3};
  for (int k = 0; k < 3; k++) {
    double x = xs[k];
    check_both_modes(bessel, x, 1e-6);
    check_both_modes(gammas, x, 1e-6);
    check_both_modes(sc, x, 1e-6);
    check_both_modes(steps, x, 1e-6);
  }
  return check_exit();
}
