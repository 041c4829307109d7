// RUN: %check-c %s %t
// Forward mode through while-loops whose trip count depends on the active
// value itself.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

/* Halve until at most 1: result x / 2^k, tangent 1 / 2^k. */
static double halve(double x)
{
  while (x > 1.0)
    x *= 0.5;
  return x;
}

/* Add x until the sum reaches 10: result k x, tangent k. */
static double count_up(double x)
{
  double s = 0.0;
  while (s < 10.0)
    s += x;
  return s;
}

/* do-while with a data-dependent exit: repeated squaring below a bound. */
static double square_until(double x, double bound)
{
  double y = x;
  do {
    y = y * y;
  } while (y < bound);
  return y;
}

static double fd1(double (*f)(double), double x)
{
  double h = 1e-6 * fmax(1.0, fabs(x));
  return (f(x + h) - f(x - h)) / (2 * h);
}

int main(void)
{
  volatile double v13 = 13.0, v07 = 0.7, v12 = 1.2;

  /* 13 -> 6.5 -> 3.25 -> 1.625 -> 0.8125: four halvings */
  double got = __enzyme_fwddiff((void *)halve, enzyme_dup, (double)v13, 1.0);
  check_close("d halve(13)", got, 1.0 / 16.0, 1e-15);
  check_close("d halve(13) (fd)", got, fd1(halve, v13), 1e-6);
  check_close("d halve(0.5), no iteration", __enzyme_fwddiff((void *)halve, enzyme_dup, 0.5, 3.0), 3.0, 1e-15);

  /* 10 / 0.7 = 14.28...: 15 additions */
  got = __enzyme_fwddiff((void *)count_up, enzyme_dup, (double)v07, 1.0);
  check_close("d count_up(0.7)", got, 15.0, 1e-14);
  check_close("d count_up(0.7) (fd)", got, fd1(count_up, v07), 1e-6);

  /* 1.2 -> 1.44 -> 2.0736 -> 4.2998: three squarings reach 3, y = x^8 */
  double x = v12;
  got = __enzyme_fwddiff((void *)square_until, enzyme_dup, x, 1.0, enzyme_const, 3.0);
  check_close("d square_until(1.2)", got, 8.0 * pow(x, 7), 1e-12);
  return check_exit();
}
