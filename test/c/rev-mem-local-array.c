// RUN: %check-c %s %t
// Reverse mode through a local array inside the function: temporaries
// written in one loop and read in another (t[i] = x[i]^2, then products of
// neighbours), and a local array updated in place several times.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
void __enzyme_autodiff_v(void *, ...);

enum { N = 5 };

/* t[i] = x[i]^2; f = sum_i t[i] t[(i + 1) % N] = sum_i x_i^2 x_{i+1}^2 (cyclic) */
static double cyclic(const double *x)
{
  double t[N];
  for (int i = 0; i < N; i++)
    t[i] = x[i] * x[i];
  double s = 0.0;
  for (int i = 0; i < N; i++)
    s += t[i] * t[(i + 1) % N];
  return s;
}

/* A local state of two values stepped k times: (a, b) <- (a b, a + b),
   from (x, 1). The gradient is checked against central differences. */
static double stepped(double x, int k)
{
  double st[2] = {x, 1.0};
  for (int i = 0; i < k; i++) {
    double a = st[0], b = st[1];
    st[0] = a * b * 0.5;
    st[1] = a + b;
  }
  return st[0] + st[1];
}

static double stepped4(double x) { return stepped(x, 4); }

int main(void)
{
  double x[N] = {0.5, -1.2, 0.8, 1.5, -0.3}, dx[N] = {0};

  __enzyme_autodiff_v((void *)cyclic, enzyme_dup, x, dx);
  for (int j = 0; j < N; j++) {
    double xn = x[(j + 1) % N], xp = x[(j + N - 1) % N];
    char what[64];
    snprintf(what, sizeof what, "cyclic: dx[%d]", j);
    check_close(what, dx[j], 2 * x[j] * (xn * xn + xp * xp), 1e-13);
  }

  /* k = 1: x/2 + x + 1, derivative 1.5 */
  check_close("stepped, k = 1", __enzyme_autodiff((void *)stepped, 0.7, 1), 1.5, 1e-13);
  check_close("stepped, k = 4 vs central difference", __enzyme_autodiff((void *)stepped, 0.7, 4),
              central_difference(stepped4, 0.7), 1e-6);
  return check_exit();
}
