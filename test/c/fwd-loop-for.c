// RUN: %check-c %s %t
// Forward mode through counted for-loops carrying active values: a
// geometric sum, a running product, and a fixed number of Newton steps.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

/* sum_{i<n} x^i */
static double geom(double x, int n)
{
  double s = 0.0, p = 1.0;
  for (int i = 0; i < n; i++) {
    s += p;
    p *= x;
  }
  return s;
}

/* prod_{i=1..n} (x + i) */
static double rising(double x, int n)
{
  double p = 1.0;
  for (int i = 1; i <= n; i++)
    p *= x + i;
  return p;
}

/* 40 Newton steps for sqrt(a): converges, and so does the tangent. */
static double newton_sqrt(double a)
{
  double r = a;
  for (int k = 0; k < 40; k++)
    r = 0.5 * (r + a / r);
  return r;
}

static double fd1(double (*f)(double, int), double x, int n)
{
  double h = 1e-6 * fmax(1.0, fabs(x));
  return (f(x + h, n) - f(x - h, n)) / (2 * h);
}

int main(void)
{
  volatile double vx = 0.9;
  volatile int vn = 12;
  double x = vx;
  int n = vn;

  double want = 0.0;
  for (int i = 1; i < n; i++)
    want += i * pow(x, i - 1);
  double got = __enzyme_fwddiff((void *)geom, enzyme_dup, x, 1.0, n);
  check_close("d geometric sum", got, want, 1e-12);
  check_close("d geometric sum (fd)", got, fd1(geom, x, n), 1e-6);
  check_close("d geometric sum, n = 0", __enzyme_fwddiff((void *)geom, enzyme_dup, x, 1.0, 0), 0.0, 1e-15);
  check_close("d geometric sum, constant n = 4", __enzyme_fwddiff((void *)geom, enzyme_dup, 2.0, 1.0, 4),
              1.0 + 2 * 2.0 + 3 * 4.0, 1e-15);

  /* d/dx prod (x+i) = prod * sum 1/(x+i) */
  double prod = 1.0, sum = 0.0;
  for (int i = 1; i <= n; i++) {
    prod *= x + i;
    sum += 1.0 / (x + i);
  }
  got = __enzyme_fwddiff((void *)rising, enzyme_dup, x, 1.0, n);
  check_close("d rising product", got, prod * sum, 1e-12);
  check_close("d rising product (fd)", got, fd1(rising, x, n), 1e-6);

  volatile double va = 7.0;
  check_close("d newton sqrt", __enzyme_fwddiff((void *)newton_sqrt, enzyme_dup, (double)va, 1.0),
              0.5 / sqrt(7.0), 1e-12);
  return check_exit();
}
