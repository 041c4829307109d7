// RUN: %check-c %s %t
// Reverse mode through loops left early: a break once a running sum passes
// a threshold (later elements get no gradient), a return from inside the
// loop, and a scalar loop whose exit depends on the active value.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
void __enzyme_autodiff_v(void *, ...);

enum { N = 6 };

/* sum of x[i]^2 until it passes t */
static double sum_until(const double *x, int n, double t)
{
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    s += x[i] * x[i];
    if (s > t)
      break;
  }
  return s;
}

/* The first negative element times w[i], or if none the sum of x[i] w[i]. */
static double first_negative(const double *x, const double *w, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    if (x[i] < 0)
      return x[i] * x[i] * w[i];
    s += x[i] * w[i];
  }
  return s;
}

/* Multiplies by x until the product passes 10: x^k, k depends on x. */
static double power_until(double x)
{
  double p = 1.0;
  for (int i = 0; i < 100; i++) {
    p *= x;
    if (p > 10.0)
      break;
  }
  return p;
}

int main(void)
{
  double x[N] = {1.0, 1.5, -2.0, 0.5, 3.0, 1.0}, dx[N];
  double w[N] = {0.5, 1.0, 2.0, -1.0, 0.25, 4.0};

  /* 1 + 2.25 + 4 = 7.25 > 5 at i = 2 */
  for (int i = 0; i < N; i++)
    dx[i] = 0.0;
  __enzyme_autodiff_v((void *)sum_until, enzyme_dup, x, dx, N, enzyme_const, 5.0);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "sum_until: dx[%d]", i);
    check_close(what, dx[i], i <= 2 ? 2 * x[i] : 0.0, 1e-12);
  }

  /* x[2] < 0: returns x[2]^2 w[2] */
  for (int i = 0; i < N; i++)
    dx[i] = 0.0;
  __enzyme_autodiff_v((void *)first_negative, enzyme_dup, x, dx, enzyme_const, w, N);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "first_negative: dx[%d]", i);
    check_close(what, dx[i], i == 2 ? 2 * x[2] * w[2] : 0.0, 1e-12);
  }
  /* No negative element: the loop ends normally. */
  double y[N] = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
  for (int i = 0; i < N; i++)
    dx[i] = 0.0;
  __enzyme_autodiff_v((void *)first_negative, enzyme_dup, y, dx, enzyme_const, w, N);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "first_negative, none: dx[%d]", i);
    check_close(what, dx[i], w[i], 1e-12);
  }

  /* 1.5^6 = 11.39: k = 6; 3.5^2 = 12.25: k = 2; 20: k = 1 */
  check_close("power_until, x = 1.5", __enzyme_autodiff((void *)power_until, 1.5), 6 * pow(1.5, 5), 1e-12);
  check_close("power_until, x = 3.5", __enzyme_autodiff((void *)power_until, 3.5), 7.0, 1e-12);
  check_close("power_until, x = 20", __enzyme_autodiff((void *)power_until, 20.0), 1.0, 1e-12);
  return check_exit();
}
