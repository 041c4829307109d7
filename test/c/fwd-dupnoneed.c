// RUN: %check-c %s %t
// enzyme_dupnoneed: the argument is differentiated like dup, but the caller
// does not need its primal result, so only the shadow is checked.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);
void __enzyme_fwddiffv(void *, ...);

/* out[i] = exp(x[i]) * x[i] */
static void expx(double *out, const double *x, int n)
{
  for (int i = 0; i < n; i++)
    out[i] = exp(x[i]) * x[i];
}

/* Result into *out, and returns a value too. */
static double both(double *out, double x)
{
  *out = x * x * x;
  return sin(x);
}

int main(void)
{
  enum { N = 3 };
  double x[N] = {0.5, -1.0, 2.0}, dx[N] = {1.0, 2.0, -0.5};
  double out[N] = {0}, dout[N] = {0};

  __enzyme_fwddiffv((void *)expx, enzyme_dupnoneed, out, dout, enzyme_dup, x, dx, N);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "dupnoneed: dout[%d]", i);
    check_close(what, dout[i], exp(x[i]) * (1 + x[i]) * dx[i], 1e-14);
  }

  double o = 0.0, d = 0.0;
  volatile double vx = 0.7;
  double t = __enzyme_fwddiff((void *)both, enzyme_dupnoneed, &o, &d, enzyme_dup, (double)vx, 1.0);
  check_close("dupnoneed pointer: returned tangent", t, cos(vx), 1e-14);
  check_close("dupnoneed pointer: shadow", d, 3 * vx * vx, 1e-14);

  /* dupnoneed on a scalar argument behaves like dup. */
  double o2 = 0.0, d2 = 0.0;
  t = __enzyme_fwddiff((void *)both, enzyme_dup, &o2, &d2, enzyme_dupnoneed, (double)vx, 2.0);
  check_close("dupnoneed scalar: returned tangent", t, 2 * cos(vx), 1e-14);
  check_close("dupnoneed scalar: shadow", d2, 6 * vx * vx, 1e-14);
  check_close("dup pointer still gets its primal", o2, vx * vx * vx, 1e-14);
  return check_exit();
}
