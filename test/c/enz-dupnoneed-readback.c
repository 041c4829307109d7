// RUN: %check-c %s %t
// XFAIL: *
// Not supported yet: a dupnoneed output that the function reads back, with a
// null primal (the derivative would need storage of its own for the primal
// values; today it writes through the null pointer and crashes).
// enzyme_dupnoneed with a null primal pointer for an output that the
// function reads back after writing it: reverse mode needs those primal
// values, which the derivative must keep itself.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

extern int enzyme_dup, enzyme_dupnoneed, enzyme_const;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

/* out[i] = exp(x[i]); then out[i] *= out[(i+1) % n] (reads its own output) */
void chain(double *out, const double *x, int n)
{
  for (int i = 0; i < n; i++)
    out[i] = exp(x[i]);
  for (int i = 0; i + 1 < n; i++)
    out[i] *= out[i + 1];
}

int main(void)
{
  enum { N = 5 };
  char what[64];
  /* reverse through an output that is read back: needs the primal values,
   * which the derivative must keep itself */
  double x[N] = {0.2, -0.1, 0.5, 0.3, -0.4}, dx[N] = {0}, a2[N];
  for (int i = 0; i < N; i++)
    a2[i] = 1.0;
  __enzyme_autodiff((void *)chain, enzyme_dupnoneed, (double *)NULL, a2, enzyme_dup, x, dx, enzyme_const, N);
  for (int k = 0; k < N; k++) {
    /* out[i] = e^{x_i + x_{i+1}} for i < n-1, out[n-1] = e^{x_{n-1}} */
    double want = 0;
    if (k + 1 < N)
      want += exp(x[k] + x[k + 1]);
    if (k > 0)
      want += exp(x[k - 1] + x[k]);
    if (k == N - 1)
      want += exp(x[k]);
    snprintf(what, sizeof what, "output read back dx[%d]", k);
    check_close(what, dx[k], want, 1e-14);
  }
  return check_exit();
}
