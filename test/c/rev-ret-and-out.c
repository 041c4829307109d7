// RUN: %check-c %s %t
// A function with both a double result and a dup output array: the result
// is seeded with 1 and the output with the caller's shadow seed, and the
// gradient is the sum of both contributions. The result also depends on the
// output after it was written.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
void __enzyme_autodiff_v(void *, ...);

/* out[0] = x0 x1; out[1] = sin(x0); returns x0 + out[0]^2 */
static double both(const double *x, double *out)
{
  out[0] = x[0] * x[1];
  out[1] = sin(x[0]);
  return x[0] + out[0] * out[0];
}

/* An active scalar too: out[0] = k x0; returns k^2 + out[0] */
static double with_scalar(const double *x, double k, double *out)
{
  out[0] = k * x[0];
  return k * k + out[0];
}

int main(void)
{
  double x[2] = {1.5, -0.5}, dx[2] = {0, 0};
  double out[2] = {0, 0}, dout[2] = {2.0, 3.0};
  double p = x[0] * x[1];

  __enzyme_autodiff_v((void *)both, enzyme_dup, x, dx, enzyme_dup, out, dout);
  /* adjoint of out[0]: 2 (seed) + 2 p (from the result) */
  double a0 = 2.0 + 2 * p;
  check_close("both: dx[0]", dx[0], 1.0 + a0 * x[1] + 3.0 * cos(x[0]), 1e-13);
  check_close("both: dx[1]", dx[1], a0 * x[0], 1e-13);
  check_true("both: dout consumed", dout[0] == 0.0 && dout[1] == 0.0);
  check_close("both: out[1]", out[1], sin(x[0]), 1e-13);

  dx[0] = dx[1] = 0.0;
  dout[0] = 0.5;
  double k = 1.25;
  double dk = __enzyme_autodiff((void *)with_scalar, enzyme_dup, x, dx, enzyme_out, k, enzyme_dup, out, dout);
  check_close("with_scalar: dk", dk, 2 * k + 1.5 * x[0], 1e-13);
  check_close("with_scalar: dx[0]", dx[0], 1.5 * k, 1e-13);
  check_close("with_scalar: dout[0] consumed", dout[0], 0.0, 0.0);
  return check_exit();
}
