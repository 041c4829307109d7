// RUN: %check-c %s %t
// Reverse mode through counted for loops: a sum accumulated over the
// iterations, a loop-carried product (x^n by repeated multiplication, for
// n = 0, 1, 2, 7, 30), a rising factorial and a truncated exp series.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);

/* sum_{i<n} (x + i)^2 */
static double sum_sq(double x, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += (x + i) * (x + i);
  return s;
}

/* x^n */
static double power(double x, int n)
{
  double p = 1.0;
  for (int i = 0; i < n; i++)
    p = p * x;
  return p;
}

/* x (x + 1) ... (x + n - 1) */
static double rising(double x, int n)
{
  double p = 1.0;
  for (int i = 0; i < n; i++)
    p *= x + i;
  return p;
}

/* sum_{k<n} x^k / k!, the term updated from the previous one */
static double exp_series(double x, int n)
{
  double term = 1.0, s = 0.0;
  for (int k = 0; k < n; k++) {
    s += term;
    term = term * x / (k + 1);
  }
  return s;
}

static double exp_series_20(double x) { return exp_series(x, 20); }

int main(void)
{
  volatile double vx = 1.1;
  double x = vx;

  double want = 0.0;
  for (int i = 0; i < 10; i++)
    want += 2 * (x + i);
  check_close("sum_sq, n = 10", __enzyme_autodiff((void *)sum_sq, x, 10), want, 1e-12);
  check_close("sum_sq, n = 0", __enzyme_autodiff((void *)sum_sq, x, 0), 0.0, 1e-12);
  check_close("sum_sq, n = 1", __enzyme_autodiff((void *)sum_sq, x, 1), 2 * x, 1e-12);

  int ns[] = {0, 1, 2, 7, 30};
  for (int k = 0; k < 5; k++) {
    int n = ns[k];
    char what[64];
    snprintf(what, sizeof what, "power, n = %d", n);
    check_close(what, __enzyme_autodiff((void *)power, x, n), n == 0 ? 0.0 : n * pow(x, n - 1), 1e-12);
  }

  double p = 1.0, s = 0.0;
  for (int i = 0; i < 6; i++) {
    p *= x + i;
    s += 1.0 / (x + i);
  }
  check_close("rising factorial, n = 6", __enzyme_autodiff((void *)rising, x, 6), p * s, 1e-12);

  /* d/dx of the 20-term series is the 19-term series. */
  check_close("exp series", __enzyme_autodiff((void *)exp_series, x, 20), exp_series(x, 19), 1e-12);
  check_close("exp series vs central difference", __enzyme_autodiff((void *)exp_series, x, 20),
              central_difference(exp_series_20, x), 1e-6);
  return check_exit();
}
