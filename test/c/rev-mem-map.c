// RUN: %check-c %s %t
// Reverse mode of void functions from array to array: y[i] = f(x[i]) and a
// neighbour stencil. The caller seeds the output shadow dy with weights w;
// afterwards dx holds J^T w, dy reads as consumed (zero), and the primal
// outputs are computed.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
void __enzyme_autodiff_v(void *, ...);

enum { N = 6 };

/* y[i] = x[i]^2 + sin(x[i]) */
static void map(const double *x, double *y, int n)
{
  for (int i = 0; i < n; i++)
    y[i] = x[i] * x[i] + sin(x[i]);
}

/* y[i] = x[i + 1] * x[i], i < n - 1 */
static void stencil(const double *x, double *y, int n)
{
  for (int i = 0; i + 1 < n; i++)
    y[i] = x[i + 1] * x[i];
}

int main(void)
{
  double x[N], dx[N], y[N], dy[N], w[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.4 * i - 0.9;
    w[i] = 1.0 + 0.5 * i;
    dx[i] = 0.0;
    y[i] = -99.0;
    dy[i] = w[i];
  }
  __enzyme_autodiff_v((void *)map, enzyme_dup, x, dx, enzyme_dup, y, dy, N);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "map: dx[%d]", i);
    check_close(what, dx[i], w[i] * (2 * x[i] + cos(x[i])), 1e-13);
    snprintf(what, sizeof what, "map: dy[%d] consumed", i);
    check_close(what, dy[i], 0.0, 0.0);
    snprintf(what, sizeof what, "map: y[%d]", i);
    check_close(what, y[i], x[i] * x[i] + sin(x[i]), 1e-13);
  }

  for (int i = 0; i < N; i++) {
    dx[i] = 0.0;
    dy[i] = w[i];
  }
  __enzyme_autodiff_v((void *)stencil, enzyme_dup, x, dx, enzyme_dup, y, dy, N);
  for (int i = 0; i < N; i++) {
    double want = 0.0;
    if (i + 1 < N)
      want += w[i] * x[i + 1];
    if (i > 0)
      want += w[i - 1] * x[i - 1];
    char what[64];
    snprintf(what, sizeof what, "stencil: dx[%d]", i);
    check_close(what, dx[i], want, 1e-13);
  }
  for (int i = 0; i + 1 < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "stencil: dy[%d] consumed", i);
    check_close(what, dy[i], 0.0, 0.0);
  }
  /* The stencil never writes y[N - 1]: its shadow is left as it was. */
  check_close("stencil: dy[N-1] untouched", dy[N - 1], w[N - 1], 0.0);
  return check_exit();
}
