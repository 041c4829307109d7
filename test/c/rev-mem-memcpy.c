// RUN: %check-c %s %t
// Reverse mode through memcpy and memset of doubles inside the function: a
// copy into a local buffer that is then changed, a memset-cleared
// accumulator, and a memcpy from the input to the output array (the output
// shadow's adjoint moves back to the input shadow and is consumed).
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
void __enzyme_autodiff_v(void *, ...);

enum { N = 5 };

/* buf = copy of x; buf[i] *= buf[i]; return sum w[i] buf[i] (x unchanged) */
static double copy_square(const double *x, const double *w)
{
  double buf[N];
  memcpy(buf, x, sizeof buf);
  for (int i = 0; i < N; i++)
    buf[i] *= buf[i];
  double s = 0.0;
  for (int i = 0; i < N; i++)
    s += w[i] * buf[i];
  return s;
}

/* acc cleared with memset, acc[i % 2] += x[i]^3; return acc[0] * acc[1] */
static double cleared(const double *x)
{
  double acc[2];
  memset(acc, 0, sizeof acc);
  for (int i = 0; i < N; i++)
    acc[i % 2] += x[i] * x[i] * x[i];
  return acc[0] * acc[1];
}

/* y = x copied, then y[i] = 2 y[i] + sin(y[i]) */
static void copy_out(const double *x, double *y, int n)
{
  memcpy(y, x, n * sizeof(double));
  for (int i = 0; i < n; i++)
    y[i] = 2 * y[i] + sin(y[i]);
}

int main(void)
{
  double x[N] = {0.5, -1.0, 2.0, 0.25, 1.5}, dx[N] = {0};
  double w[N] = {1.0, -2.0, 0.5, 3.0, 1.0};

  __enzyme_autodiff_v((void *)copy_square, enzyme_dup, x, dx, enzyme_const, w);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "copy_square: dx[%d]", i);
    check_close(what, dx[i], 2 * w[i] * x[i], 1e-13);
  }

  double a0 = 0.0, a1 = 0.0;
  for (int i = 0; i < N; i++) {
    if (i % 2 == 0)
      a0 += x[i] * x[i] * x[i];
    else
      a1 += x[i] * x[i] * x[i];
    dx[i] = 0.0;
  }
  __enzyme_autodiff_v((void *)cleared, enzyme_dup, x, dx);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "cleared: dx[%d]", i);
    check_close(what, dx[i], 3 * x[i] * x[i] * (i % 2 == 0 ? a1 : a0), 1e-13);
  }

  double y[N], dy[N];
  for (int i = 0; i < N; i++) {
    dx[i] = 0.0;
    y[i] = -99.0;
    dy[i] = w[i];
  }
  __enzyme_autodiff_v((void *)copy_out, enzyme_dup, x, dx, enzyme_dup, y, dy, N);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "copy_out: y[%d]", i);
    check_close(what, y[i], 2 * x[i] + sin(x[i]), 1e-13);
    snprintf(what, sizeof what, "copy_out: dx[%d]", i);
    check_close(what, dx[i], w[i] * (2 + cos(x[i])), 1e-13);
    snprintf(what, sizeof what, "copy_out: dy[%d] consumed", i);
    check_close(what, dy[i], 0.0, 0.0);
  }
  return check_exit();
}
