// RUN: %check-c %s %t
// Forward mode through nested loops: a rectangular double loop summing
// sin terms, and a triangular one with a product accumulator.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

/* sum_{i<n} sum_{j<m} (j+1) sin((i+1) x) */
static double rect(double x, int n, int m)
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      s += sin(x * (i + 1)) * (j + 1);
  return s;
}

/* prod_{i<n} prod_{j<=i} (1 + x / (i + j + 1)) */
static double tri(double x, int n)
{
  double p = 1.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++)
      p *= 1.0 + x / (i + j + 1);
  return p;
}

/* Inner loop carries its own active accumulator, reset on each outer pass. */
static double inner_reset(double x, int n)
{
  double total = 0.0;
  for (int i = 1; i <= n; i++) {
    double t = 1.0;
    for (int k = 0; k < i; k++)
      t *= x;
    total += t / i;   /* x^i / i */
  }
  return total;
}

int main(void)
{
  volatile double vx = 0.3;
  double x = vx;
  int n = 5, m = 4;

  double want = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      want += cos(x * (i + 1)) * (i + 1) * (j + 1);
  check_close("d rect", __enzyme_fwddiff((void *)rect, enzyme_dup, x, 1.0, n, m), want, 1e-12);

  double p = tri(x, n), sum = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++)
      sum += 1.0 / (i + j + 1 + x);
  check_close("d tri", __enzyme_fwddiff((void *)tri, enzyme_dup, x, 1.0, n), p * sum, 1e-12);

  want = 0.0;
  for (int i = 1; i <= 6; i++)
    want += pow(x, i - 1);
  check_close("d inner_reset", __enzyme_fwddiff((void *)inner_reset, enzyme_dup, x, 1.0, 6), want, 1e-12);
  return check_exit();
}
