// RUN: %check-c %s %t
// Degenerate trip counts in reverse and forward mode: a loop `i <= n` run
// with n = -1 and n = -10 on null pointers (no iteration, nothing may be
// touched), with n = 0 (one iteration), and with the full length; an
// in-place square whose shadow is seeded and read back.
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

void sq_upto(double *a, int n)
{
  for (int i = 0; i <= n; i++)
    a[i] *= a[i];
}

int main(void)
{
  char what[64];
  sq_upto((double *)0, -1);
  __enzyme_autodiff((void *)sq_upto, (double *)0, (double *)0, -1);
  __enzyme_autodiff((void *)sq_upto, (double *)0, (double *)0, -10);
  __enzyme_fwddiff((void *)sq_upto, (double *)0, (double *)0, -3);
  check_true("no iteration on null pointers", 1);

  double *a1 = malloc(sizeof(double)), *d1 = malloc(sizeof(double));
  a1[0] = 3.5;
  d1[0] = 1.0;
  __enzyme_autodiff((void *)sq_upto, a1, d1, 0);
  check_close("one iteration: a", a1[0], 3.5 * 3.5, 1e-14);
  check_close("one iteration: da", d1[0], 7.0, 1e-14);

  enum { N = 10 };
  double *a = malloc(N * sizeof(double)), *d = malloc(N * sizeof(double));
  for (int i = 0; i < N; i++) {
    a[i] = 1 + i;
    d[i] = 1;
  }
  __enzyme_autodiff((void *)sq_upto, a, d, N - 1);
  for (int i = 0; i < N; i++) {
    snprintf(what, sizeof what, "reverse d[%d]", i);
    check_close(what, d[i], 2.0 * (1 + i), 1e-14);
  }
  for (int i = 0; i < N; i++) {
    a[i] = 1 + i;
    d[i] = 0.5;
  }
  __enzyme_fwddiff((void *)sq_upto, a, d, N - 1);
  for (int i = 0; i < N; i++) {
    snprintf(what, sizeof what, "forward d[%d]", i);
    check_close(what, d[i], 2.0 * (1 + i) * 0.5, 1e-14);
  }
  free(a1);
  free(d1);
  free(a);
  free(d);
  return check_exit();
}
