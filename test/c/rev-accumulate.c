// RUN: %check-c %s %t
// Gradients of dup arguments are accumulated (+=), never overwritten: two
// calls with the same shadow double it; a shadow that starts non-zero keeps
// its start value plus the gradient. The returned gradient of an active
// scalar is not accumulated anywhere: each call returns it afresh.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
void __enzyme_autodiff_v(void *, ...);

/* k * sum sin(x_i) */
static double f(const double *x, double k, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += sin(x[i]);
  return k * s;
}

enum { N = 4 };

int main(void)
{
  double x[N] = {0.2, 1.1, -0.7, 2.4}, dx[N] = {0};
  double k = 1.5, s = 0.0;
  for (int i = 0; i < N; i++)
    s += sin(x[i]);

  double dk1 = __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_out, k, N);
  double dk2 = __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_out, k, N);
  check_close("dk, first call", dk1, s, 1e-14);
  check_close("dk, second call (not accumulated)", dk2, s, 1e-14);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "two calls: dx[%d] doubled", i);
    check_close(what, dx[i], 2 * k * cos(x[i]), 1e-14);
  }

  double dy[N] = {10.0, -20.0, 30.0, -40.0};
  __enzyme_autodiff_v((void *)f, enzyme_dup, x, dy, enzyme_const, k, N);
  double start[N] = {10.0, -20.0, 30.0, -40.0};
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "non-zero start: dy[%d]", i);
    check_close(what, dy[i], start[i] + k * cos(x[i]), 1e-14);
  }
  return check_exit();
}
