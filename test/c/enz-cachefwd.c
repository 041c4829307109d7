// RUN: %check-c %s %t -ffast-math
// Compiled with -ffast-math. A local temporary array rewritten at every
// outer iteration from the active input and then read (so the reverse sweep
// needs each iteration's values), with the entry point declared with a
// fixed prototype returning void, as Enzyme's tests do. Also a loop-carried
// product and a fast-math friendly reduction that the optimiser may
// reassociate and vectorise.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern void __enzyme_autodiff(void *, double *, double *, int);
extern double __enzyme_fwddiff(void *, ...);

double tilsum(double *v, int n)
{
  double r = 0.0, tmp[4];
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < 4; j++)
      tmp[j] = v[i] * (j + 1) + v[(i + 1) % n] * j * j;
    for (int j = 0; j < 4; j++)
      r += tmp[j] * tmp[(j + 1) % 4];
  }
  return r;
}

double prodsum(double *v, int n)
{
  double p = 1.0, s = 0.0;
  for (int i = 0; i < n; i++) {
    p *= 1.0 + 0.1 * v[i];
    s += v[i] * v[i] * v[i];
  }
  return p + s;
}

enum { N = 6 };
static double V0[N] = {1.0, 2.0, -0.5, 0.75, 3.0, -1.25};

static double fd(double (*f)(double *, int), int k)
{
  double v[N], h = 1e-5;
  for (int i = 0; i < N; i++)
    v[i] = V0[i];
  v[k] += h;
  double p = f(v, N);
  v[k] = V0[k] - h;
  double q = f(v, N);
  return (p - q) / (2 * h);
}

int main(void)
{
  char what[64];
  double v[N], dv[N] = {0};
  for (int i = 0; i < N; i++)
    v[i] = V0[i];
  __enzyme_autodiff(tilsum, v, dv, N);
  for (int k = 0; k < N; k++) {
    snprintf(what, sizeof what, "temporary array dv[%d]", k);
    check_close(what, dv[k], fd(tilsum, k), 1e-6);
  }
  double dp[N] = {0};
  __enzyme_autodiff(prodsum, v, dp, N);
  for (int k = 0; k < N; k++) {
    snprintf(what, sizeof what, "product and sum dv[%d]", k);
    check_close(what, dp[k], fd(prodsum, k), 1e-6);
    double t[N] = {0};
    t[k] = 1.0;
    snprintf(what, sizeof what, "product and sum forward e%d", k);
    check_close(what, __enzyme_fwddiff(prodsum, v, t, N), dp[k], 1e-12);
  }
  return check_exit();
}
