// RUN: %check-c %s %t
// Forward mode through stack memory of run-time size: a variable-length
// array and __builtin_alloca (dynamic allocas, with stacksave/stackrestore
// for the VLA in a loop).
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

/* t[i] = (i+1) x: sum t[i]^2 = x^2 sum (i+1)^2 */
static double vla(double x, int n)
{
  double t[n];
  for (int i = 0; i < n; i++)
    t[i] = x * (i + 1);
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += t[i] * t[i];
  return s;
}

/* A VLA inside a loop body: allocated and released each iteration. */
static double vla_in_loop(double x, int n)
{
  double s = 0.0;
  for (int k = 1; k <= n; k++) {
    double t[k];
    for (int i = 0; i < k; i++)
      t[i] = x;
    for (int i = 0; i < k; i++)
      s += t[i] * t[k - 1 - i]; /* k x^2 */
  }
  return s;
}

static double with_alloca(double x, int n)
{
  double *t = __builtin_alloca(n * sizeof *t);
  t[0] = x;
  for (int i = 1; i < n; i++)
    t[i] = t[i - 1] * x; /* x^(i+1) */
  return t[n - 1];
}

int main(void)
{
  volatile double vx = 1.1;
  double x = vx;
  check_close("d vla", __enzyme_fwddiff((void *)vla, enzyme_dup, x, 1.0, 5), 2 * x * 55.0, 1e-14);
  check_close("d vla in loop", __enzyme_fwddiff((void *)vla_in_loop, enzyme_dup, x, 1.0, 4), 2 * x * 10.0, 1e-14);
  check_close("d alloca", __enzyme_fwddiff((void *)with_alloca, enzyme_dup, x, 1.0, 6), 6 * pow(x, 5), 1e-14);
  return check_exit();
}
