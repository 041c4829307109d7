// RUN: %check-c %s %t
// After the call, the shadow of memory the function wrote holds its adjoint
// consumed: zero. out[0] = x[0] x[1] seeded with dout[0] = 1 leaves
// dout[0] == 0 and dx == {x1, x0}. An output written twice, and an output
// read back by the function, are consumed the same way.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
void __enzyme_autodiff_v(void *, ...);

static void prod(const double *x, double *out) { out[0] = x[0] * x[1]; }

/* out[0] written twice: first x0, then out[0] * x1 (read back) */
static void twice(const double *x, double *out)
{
  out[0] = x[0];
  out[0] = out[0] * x[1];
}

/* out[1] computed from out[0] after out[0] is written */
static void chained(const double *x, double *out)
{
  out[0] = x[0] + x[1];
  out[1] = out[0] * out[0];
}

int main(void)
{
  double x[2] = {3.0, -2.5}, dx[2] = {0, 0};
  double out[2] = {0, 0}, dout[2] = {1.0, 0.0};

  __enzyme_autodiff_v((void *)prod, enzyme_dup, x, dx, enzyme_dup, out, dout);
  check_close("prod: out[0]", out[0], x[0] * x[1], 0.0);
  check_close("prod: dout[0] consumed", dout[0], 0.0, 0.0);
  check_close("prod: dx[0]", dx[0], x[1], 1e-15);
  check_close("prod: dx[1]", dx[1], x[0], 1e-15);

  dx[0] = dx[1] = 0.0;
  dout[0] = 2.0;
  __enzyme_autodiff_v((void *)twice, enzyme_dup, x, dx, enzyme_dup, out, dout);
  check_close("twice: dout[0] consumed", dout[0], 0.0, 0.0);
  check_close("twice: dx[0]", dx[0], 2.0 * x[1], 1e-15);
  check_close("twice: dx[1]", dx[1], 2.0 * x[0], 1e-15);

  /* seeds (a, b): dx0 = dx1 = a + 2 b (x0 + x1) */
  dx[0] = dx[1] = 0.0;
  dout[0] = 0.5;
  dout[1] = 1.5;
  __enzyme_autodiff_v((void *)chained, enzyme_dup, x, dx, enzyme_dup, out, dout);
  double want = 0.5 + 2 * 1.5 * (x[0] + x[1]);
  check_close("chained: out[1]", out[1], (x[0] + x[1]) * (x[0] + x[1]), 1e-15);
  check_close("chained: dx[0]", dx[0], want, 1e-15);
  check_close("chained: dx[1]", dx[1], want, 1e-15);
  check_close("chained: dout[0] consumed", dout[0], 0.0, 0.0);
  check_close("chained: dout[1] consumed", dout[1], 0.0, 0.0);
  return check_exit();
}
