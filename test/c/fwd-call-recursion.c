// RUN: %check-c %s %t
// Forward mode through recursive functions: a recursive power, a recursive
// sum over an array, and mutual recursion.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

static double rpow(double x, int n) { return n == 0 ? 1.0 : x * rpow(x, n - 1); }

/* Square-and-multiply recursion. */
static double fastpow(double x, unsigned n)
{
  if (n == 0)
    return 1.0;
  double h = fastpow(x, n / 2);
  return (n & 1) ? h * h * x : h * h;
}

static double rsumsq(const double *a, int n)
{
  if (n == 0)
    return 0.0;
  return a[n - 1] * a[n - 1] + rsumsq(a, n - 1);
}

static double odd_f(double x, int n);
/* even_f(x, n) = cos(odd_f(x, n-1)), odd_f(x, n) = x * even_f(x, n-1) */
static double even_f(double x, int n) { return n == 0 ? x : cos(odd_f(x, n - 1)); }
static double odd_f(double x, int n) { return n == 0 ? x : x * even_f(x, n - 1); }

int main(void)
{
  volatile double vx = 1.1;
  double x = vx;
  check_close("d rpow(x, 7)", __enzyme_fwddiff((void *)rpow, enzyme_dup, x, 1.0, 7), 7 * pow(x, 6), 1e-13);
  check_close("d rpow(x, 0)", __enzyme_fwddiff((void *)rpow, enzyme_dup, x, 1.0, 0), 0.0, 1e-13);
  check_close("d fastpow(x, 13)", __enzyme_fwddiff((void *)fastpow, enzyme_dup, x, 1.0, 13u), 13 * pow(x, 12),
              1e-13);

  double a[5] = {0.5, 1.0, -2.0, 3.0, 0.25}, da[5] = {1.0, 1.0, 1.0, -1.0, 4.0};
  double want = 0.0;
  for (int i = 0; i < 5; i++)
    want += 2 * a[i] * da[i];
  check_close("d rsumsq", __enzyme_fwddiff((void *)rsumsq, enzyme_dup, a, da, 5), want, 1e-14);

  /* even_f(x, 2) = cos(odd_f(x, 1)) = cos(x * even_f(x, 0)) = cos(x^2): d = -2x sin(x^2) */
  check_close("d mutual recursion, n = 2", __enzyme_fwddiff((void *)even_f, enzyme_dup, x, 1.0, 2),
              -2 * x * sin(x * x), 1e-13);
  /* odd_f(x, 3) = x cos(x^2): d = cos(x^2) - 2x^2 sin(x^2) */
  check_close("d mutual recursion, n = 3", __enzyme_fwddiff((void *)odd_f, enzyme_dup, x, 1.0, 3),
              cos(x * x) - 2 * x * x * sin(x * x), 1e-13);
  return check_exit();
}
