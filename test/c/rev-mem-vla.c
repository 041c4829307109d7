// RUN: %check-c %s %t
// Reverse mode through a variable-length array inside the function: its
// size is a runtime argument, it holds active temporaries.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
void __enzyme_autodiff_v(void *, ...);

enum { N = 5 };

/* u[i] = exp(x[i]); f = sum u[i] / (1 + sum u) = S / (1 + S) */
static double vla(const double *x, int n)
{
  double u[n];
  double z = 1.0;
  for (int i = 0; i < n; i++) {
    u[i] = exp(x[i]);
    z += u[i];
  }
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += u[i];
  return s / z;
}

int main(void)
{
  double x[N] = {0.5, -1.2, 0.8, 1.5, -0.3}, dx[N] = {0};
  /* df/dx_j = e^x_j / (1 + S)^2 */
  double S = 0.0;
  for (int i = 0; i < N; i++)
    S += exp(x[i]);
  __enzyme_autodiff_v((void *)vla, enzyme_dup, x, dx, N);
  for (int j = 0; j < N; j++) {
    char what[64];
    snprintf(what, sizeof what, "vla: dx[%d]", j);
    check_close(what, dx[j], exp(x[j]) / ((1 + S) * (1 + S)), 1e-13);
  }
  for (int j = 0; j < N; j++)
    dx[j] = 0.0;
  __enzyme_autodiff_v((void *)vla, enzyme_dup, x, dx, 2);
  double S2 = exp(x[0]) + exp(x[1]);
  for (int j = 0; j < N; j++) {
    char what[64];
    snprintf(what, sizeof what, "vla, n = 2: dx[%d]", j);
    check_close(what, dx[j], j < 2 ? exp(x[j]) / ((1 + S2) * (1 + S2)) : 0.0, 1e-13);
  }
  return check_exit();
}
