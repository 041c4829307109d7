// RUN: %check-c %s %t
// Reverse mode through a helper returning double called in a loop: once
// per iteration with the active scalar and the loop index, and once per
// element of a dup array.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
void __enzyme_autodiff_v(void *, ...);

static double term(double x, int i) { return sin(x * i) / (1.0 + i); }

/* sum_{i<n} sin(x i) / (1 + i) */
static double series(double x, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += term(x, i);
  return s;
}

static double softplus(double v) { return log(1.0 + exp(v)); }

/* sum_i w_i softplus(x_i) * x_i */
static double weighted(const double *x, const double *w, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += w[i] * softplus(x[i]) * x[i];
  return s;
}

int main(void)
{
  double x = 0.7, want = 0.0;
  for (int i = 0; i < 8; i++)
    want += cos(x * i) * i / (1.0 + i);
  check_close("series", __enzyme_autodiff((void *)series, x, 8), want, 1e-13);

  enum { N = 5 };
  double a[N] = {0.5, -1.0, 2.0, 0.0, -0.25}, da[N] = {0}, w[N] = {1.0, 2.0, -1.0, 0.5, 3.0};
  __enzyme_autodiff_v((void *)weighted, enzyme_dup, a, da, enzyme_const, w, N);
  for (int i = 0; i < N; i++) {
    double sig = 1.0 / (1.0 + exp(-a[i]));
    char what[64];
    snprintf(what, sizeof what, "weighted: da[%d]", i);
    check_close(what, da[i], w[i] * (softplus(a[i]) + sig * a[i]), 1e-13);
  }
  return check_exit();
}
