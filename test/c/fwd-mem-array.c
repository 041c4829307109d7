// RUN: %check-c %s %t
// Forward mode with dup pointer arguments: arrays in, arrays out. The
// tangents of the outputs appear in the shadow of the output array, and the
// primal outputs are still computed.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);
void __enzyme_fwddiffv(void *, ...);

enum { N = 6 };

/* y[i] = x[i]^2 + sin(x[i]) */
static void map(const double *x, double *y, int n)
{
  for (int i = 0; i < n; i++)
    y[i] = x[i] * x[i] + sin(x[i]);
}

/* In place: x[i] = exp(x[i]) * k */
static void scale_exp(double *x, double k, int n)
{
  for (int i = 0; i < n; i++)
    x[i] = exp(x[i]) * k;
}

/* sum of squares */
static double sumsq(const double *x, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

/* Neighbour differences: y[i] = x[i+1] * x[i] */
static void stencil(const double *x, double *y, int n)
{
  for (int i = 0; i + 1 < n; i++)
    y[i] = x[i + 1] * x[i];
}

int main(void)
{
  double x[N], dx[N], y[N], dy[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.3 * i - 0.7;
    dx[i] = 1.0 + 0.5 * i;
    y[i] = dy[i] = -99.0;
  }

  __enzyme_fwddiffv((void *)map, enzyme_dup, x, dx, enzyme_dup, y, dy, N);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "map: y[%d]", i);
    check_close(what, y[i], x[i] * x[i] + sin(x[i]), 1e-15);
    snprintf(what, sizeof what, "map: dy[%d]", i);
    check_close(what, dy[i], (2 * x[i] + cos(x[i])) * dx[i], 1e-14);
  }

  double s = 0.0;
  for (int i = 0; i < N; i++)
    s += 2 * x[i] * dx[i];
  check_close("d sumsq", __enzyme_fwddiff((void *)sumsq, enzyme_dup, x, dx, N), s, 1e-14);
  /* The input shadow is read, not written. */
  check_close("sumsq leaves dx alone", dx[3], 2.5, 1e-15);

  for (int i = 0; i < N; i++)
    y[i] = dy[i] = -99.0;
  __enzyme_fwddiffv((void *)stencil, enzyme_dup, x, dx, enzyme_dup, y, dy, N);
  for (int i = 0; i + 1 < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "stencil: dy[%d]", i);
    check_close(what, dy[i], dx[i + 1] * x[i] + x[i + 1] * dx[i], 1e-14);
  }
  check_close("stencil: last dy untouched", dy[N - 1], -99.0, 1e-15);

  /* In place update, k active: tangent exp(x) (dx k + dk) */
  double z[N], dz[N], x0[N];
  for (int i = 0; i < N; i++) {
    z[i] = x0[i] = x[i];
    dz[i] = dx[i];
  }
  __enzyme_fwddiffv((void *)scale_exp, enzyme_dup, z, dz, enzyme_dup, 1.5, 0.25, N);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "scale_exp: z[%d]", i);
    check_close(what, z[i], exp(x0[i]) * 1.5, 1e-14);
    snprintf(what, sizeof what, "scale_exp: dz[%d]", i);
    check_close(what, dz[i], exp(x0[i]) * (dx[i] * 1.5 + 0.25), 1e-14);
  }
  return check_exit();
}
