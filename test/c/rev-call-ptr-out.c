// RUN: %check-c %s %t
// Reverse mode through helpers that write through a pointer: a void helper
// with a dup output (its product into out[0]), a helper accumulating into a
// local variable whose address it gets, and a helper returning two results
// through two pointers.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
void __enzyme_autodiff_v(void *, ...);

static void prod(const double *in, double *out) { out[0] = in[0] * in[1]; }

/* out[0] = x0 x1, out[1] = sin(out[0]) via the helper */
static void caller(const double *x, double *out)
{
  prod(x, out);
  out[1] = sin(out[0]);
}

static void add_sq(double *acc, double v) { *acc += v * v; }

/* acc = sum x_i^2 through the helper, then acc * x_0 */
static double through_address(const double *x, int n)
{
  double acc = 0.0;
  for (int i = 0; i < n; i++)
    add_sq(&acc, x[i]);
  return acc * x[0];
}

static void polar(double r, double t, double *px, double *py)
{
  *px = r * cos(t);
  *py = r * sin(t);
}

/* (x, y) from polar; returns x y^2 */
static double use_polar(double r, double t)
{
  double x, y;
  polar(r, t, &x, &y);
  return x * y * y;
}

static double use_polar_r(double r) { return use_polar(r, 0.6); }

int main(void)
{
  double x[2] = {1.5, -0.8}, dx[2] = {0, 0};
  double out[2] = {0, 0}, dout[2] = {1.0, 2.0};
  __enzyme_autodiff_v((void *)caller, enzyme_dup, x, dx, enzyme_dup, out, dout);
  double p = x[0] * x[1], a = 1.0 + 2.0 * cos(p);
  check_close("caller: out[1]", out[1], sin(p), 1e-13);
  check_close("caller: dx[0]", dx[0], a * x[1], 1e-13);
  check_close("caller: dx[1]", dx[1], a * x[0], 1e-13);
  check_true("caller: dout consumed", dout[0] == 0.0 && dout[1] == 0.0);

  enum { N = 4 };
  double y[N] = {0.5, 1.5, -2.0, 0.75}, dy[N] = {0};
  double q = 0.0;
  for (int i = 0; i < N; i++)
    q += y[i] * y[i];
  __enzyme_autodiff_v((void *)through_address, enzyme_dup, y, dy, N);
  check_close("through_address: dy[0]", dy[0], 2 * y[0] * y[0] + q, 1e-13);
  for (int i = 1; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "through_address: dy[%d]", i);
    check_close(what, dy[i], 2 * y[i] * y[0], 1e-13);
  }

  /* x y^2 = r^3 cos t sin^2 t: d/dr = 3 r^2 cos t sin^2 t */
  double r = 1.3, t = 0.6;
  check_close("use_polar: d/dr", __enzyme_autodiff((void *)use_polar, r, enzyme_const, t),
              3 * r * r * cos(t) * sin(t) * sin(t), 1e-13);
  check_close("use_polar: d/dr vs central difference",
              __enzyme_autodiff((void *)use_polar, r, enzyme_const, t), central_difference(use_polar_r, r), 1e-6);
  check_close("use_polar: d/dt", __enzyme_autodiff((void *)use_polar, enzyme_const, r, t),
              r * r * r * (-sin(t) * sin(t) * sin(t) + 2 * cos(t) * cos(t) * sin(t)), 1e-13);
  return check_exit();
}
