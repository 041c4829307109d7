// RUN: %check-c %s %t
// enzyme_dupnoneed with a null primal pointer, as Enzyme users write for
// output-only arrays (`enzyme_dupnoneed, nullptr, d_out`): the function
// writes its results through the pointer, but the caller passes no primal
// storage, only the shadow. The derivative must never touch the primal
// pointer. Reverse mode (the shadow holds the output adjoints) and forward
// mode (the shadow receives the output tangents). (An output the function
// also reads back: enz-dupnoneed-readback.c.)
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

extern int enzyme_dup, enzyme_dupnoneed, enzyme_const;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

/* du[i] = p0 u[i] (1 - u[i]) - p1 u[i] + 0.1 sum(u) */
void rhs(double *du, const double *u, const double *p, int n)
{
  double s = 0;
  for (int i = 0; i < n; i++)
    s += u[i];
  for (int i = 0; i < n; i++)
    du[i] = p[0] * u[i] * (1 - u[i]) - p[1] * u[i] + 0.1 * s;
}

int main(void)
{
  enum { N = 5 };
  char what[64];
  double u[N] = {0.1, 0.4, 0.9, 0.3, 0.6}, p[2] = {2.0, 0.5};
  double w[N] = {1.0, -1.0, 0.5, 2.0, 0.25};
  double adj[N], du[N] = {0}, dp[2] = {0};
  for (int i = 0; i < N; i++)
    adj[i] = w[i];
  __enzyme_autodiff((void *)rhs, enzyme_dupnoneed, (double *)NULL, adj, enzyme_dup, u, du, enzyme_dup, p, dp,
                    enzyme_const, N);
  double sw = 0, dp0 = 0, dp1 = 0;
  for (int i = 0; i < N; i++) {
    sw += w[i];
    dp0 += w[i] * u[i] * (1 - u[i]);
    dp1 -= w[i] * u[i];
  }
  for (int i = 0; i < N; i++) {
    snprintf(what, sizeof what, "reverse du[%d]", i);
    check_close(what, du[i], w[i] * (p[0] * (1 - 2 * u[i]) - p[1]) + 0.1 * sw, 1e-14);
  }
  check_close("reverse dp0", dp[0], dp0, 1e-14);
  check_close("reverse dp1", dp[1], dp1, 1e-14);

  double tu[N] = {1, 0, 0, 0, 0}, tout[N] = {0};
  __enzyme_fwddiff((void *)rhs, enzyme_dupnoneed, (double *)NULL, tout, enzyme_dup, u, tu, enzyme_const, p,
                   enzyme_const, N);
  for (int i = 0; i < N; i++) {
    double want = (i == 0 ? p[0] * (1 - 2 * u[0]) - p[1] : 0.0) + 0.1;
    snprintf(what, sizeof what, "forward tout[%d]", i);
    check_close(what, tout[i], want, 1e-14);
  }

  return check_exit();
}
