// RUN: %check-c %s %t
// enzyme_dupnoneed: like dup, the gradient flows through the shadow, but the
// primal values written to that memory are not needed by the caller (so
// this test does not look at them). The output shadow, seeded by the
// caller, reads as consumed afterwards.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
void __enzyme_autodiff_v(void *, ...);
double __enzyme_autodiff(void *, ...);

enum { N = 5 };

/* y[i] = exp(x[i]) * k */
static void expk(const double *x, double k, double *y, int n)
{
  for (int i = 0; i < n; i++)
    y[i] = exp(x[i]) * k;
}

int main(void)
{
  double x[N] = {0.1, -0.5, 1.2, 0.0, 2.0}, dx[N] = {0};
  double y[N], dy[N], w[N] = {1.0, 2.0, -1.0, 0.5, 0.25};
  for (int i = 0; i < N; i++)
    dy[i] = w[i];
  double k = 1.5;
  double dk = __enzyme_autodiff((void *)expk, enzyme_dup, x, dx, enzyme_out, k, enzyme_dupnoneed, y, dy, N);
  double want_dk = 0.0;
  for (int i = 0; i < N; i++) {
    want_dk += w[i] * exp(x[i]);
    char what[64];
    snprintf(what, sizeof what, "dx[%d]", i);
    check_close(what, dx[i], w[i] * k * exp(x[i]), 1e-13);
    snprintf(what, sizeof what, "dy[%d] consumed", i);
    check_close(what, dy[i], 0.0, 0.0);
  }
  check_close("dk", dk, want_dk, 1e-13);

  /* the input marked dupnoneed instead */
  for (int i = 0; i < N; i++) {
    dx[i] = 0.0;
    dy[i] = w[i];
  }
  __enzyme_autodiff_v((void *)expk, enzyme_dupnoneed, x, dx, enzyme_const, k, enzyme_dup, y, dy, N);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "input dupnoneed: dx[%d]", i);
    check_close(what, dx[i], w[i] * k * exp(x[i]), 1e-13);
    snprintf(what, sizeof what, "input dupnoneed: y[%d]", i);
    check_close(what, y[i], exp(x[i]) * k, 1e-13);
  }
  return check_exit();
}
