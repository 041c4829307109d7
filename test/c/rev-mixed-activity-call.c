// RUN: %check-c %s %t
// One call mixing every kind of argument: several enzyme_out scalars, dup
// arrays, an enzyme_dupnoneed output buffer (its primal values are not
// needed after the call, only its shadow seeds the gradient), const
// arguments between them, unmarked ones taking their defaults; and forward
// mode with dup on several inputs at once, whose tangent is the sum of the
// directional derivatives.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
typedef struct { double da, db, dc; } Grad3;
Grad3 __enzyme_autodiff_3(void *, ...);
void __enzyme_autodiff_v(void *, ...);
double __enzyme_fwddiff(void *, ...);

enum { N = 4 };

/* out[i] = a x[i]^2 + b y[i] + c sin(x[i] y[i]) * scale; returns sum(out) * a */
static double layer(double a, const double *x, double b, const double *y, int n, double c,
                    double *out, double scale)
{
  double s = 0;
  for (int i = 0; i < n; i++) {
    out[i] = a * x[i] * x[i] + b * y[i] + c * sin(x[i] * y[i]) * scale;
    s += out[i];
  }
  return s * a;
}

/* writes only: the primal of `out` is never read */
static void write_only(const double *x, double *out)
{
  for (int i = 0; i < N; i++)
    out[i] = exp(x[i]) * x[(i + 1) % N];
}

/* values written for the caller to look at through an enzyme_const
 * pointer, never read here: their derivative is not asked for */
static double logged(const double *x, double *log_values)
{
  double s = 0;
  for (int i = 0; i < N; i++) {
    double v = sin(x[i]) * x[i];
    log_values[i] = v;
    s += v;
  }
  return s;
}

int main(void)
{
  double a = 0.7, b = -1.3, c = 0.4, scale = 2.0;
  double x[N] = {0.5, -1.0, 1.5, 0.25}, y[N] = {1.0, 2.0, -0.5, 0.75};
  double dx[N] = {0}, dy[N] = {0};
  double out[N], dout[N] = {1.0, 0.5, -1.0, 2.0};
  double seed[N] = {1.0, 0.5, -1.0, 2.0};
  Grad3 g = __enzyme_autodiff_3((void *)layer, enzyme_out, a, enzyme_dup, x, dx, enzyme_out, b, enzyme_dup, y, dy,
                                enzyme_const, N, c, enzyme_dupnoneed, out, dout, enzyme_const, scale);
  /* result = a S with S = sum out[i]; each out[i] gets adjoint a + seed[i] */
  double S = 0, want_a = 0, want_b = 0, want_c = 0;
  for (int i = 0; i < N; i++)
    S += a * x[i] * x[i] + b * y[i] + c * sin(x[i] * y[i]) * scale;
  want_a = S;
  for (int i = 0; i < N; i++) {
    double w = a + seed[i], cs = c * cos(x[i] * y[i]) * scale;
    want_a += w * x[i] * x[i];
    want_b += w * y[i];
    want_c += w * sin(x[i] * y[i]) * scale;
    char what[32];
    snprintf(what, sizeof what, "layer: dx[%d]", i);
    check_close(what, dx[i], w * (2 * a * x[i] + cs * y[i]), 1e-13);
    snprintf(what, sizeof what, "layer: dy[%d]", i);
    check_close(what, dy[i], w * (b + cs * x[i]), 1e-13);
  }
  check_close("layer: da", g.da, want_a, 1e-13);
  check_close("layer: db", g.db, want_b, 1e-13);
  check_close("layer: dc (unmarked double: out)", g.dc, want_c, 1e-13);
  check_true("layer: dout consumed", dout[0] == 0 && dout[1] == 0 && dout[2] == 0 && dout[3] == 0);

  /* forward: tangents on a, x, y and c at once */
  double tx[N] = {1, 0, -1, 0.5}, ty[N] = {0, 2, 1, -1}, tout[N];
  double ta = 0.3, tc = -0.2;
  double got = __enzyme_fwddiff((void *)layer, a, ta, enzyme_dup, x, tx, enzyme_const, b, enzyme_dup, y, ty,
                                enzyme_const, N, c, tc, enzyme_dupnoneed, out, tout, enzyme_const, scale);
  double want = ta * S;
  for (int i = 0; i < N; i++) {
    double cs = c * cos(x[i] * y[i]) * scale;
    double dout_i = ta * x[i] * x[i] + 2 * a * x[i] * tx[i] + b * ty[i] + tc * sin(x[i] * y[i]) * scale +
                    cs * (tx[i] * y[i] + x[i] * ty[i]);
    want += a * dout_i;
    char what[32];
    snprintf(what, sizeof what, "layer forward: tout[%d]", i);
    check_close(what, tout[i], dout_i, 1e-13);
  }
  check_close("layer forward: result", got, want, 1e-13);

  double wx[N] = {0}, junk[N] = {-7, -7, -7, -7}, wseed[N] = {1, 2, 3, 4};
  __enzyme_autodiff_v((void *)write_only, enzyme_dup, x, wx, enzyme_dupnoneed, junk, wseed);
  for (int i = 0; i < N; i++) {
    int prev = (i + N - 1) % N;
    double want_i = (i + 1) * exp(x[i]) * x[(i + 1) % N] + (prev + 1) * exp(x[prev]);
    char what[32];
    snprintf(what, sizeof what, "write_only: dx[%d]", i);
    check_close(what, wx[i], want_i, 1e-13);
  }

  double lx[N] = {0}, log_values[N];
  __enzyme_autodiff_v((void *)logged, enzyme_dup, x, lx, enzyme_const, log_values);
  for (int i = 0; i < N; i++) {
    char what[32];
    snprintf(what, sizeof what, "logged: dx[%d]", i);
    check_close(what, lx[i], cos(x[i]) * x[i] + sin(x[i]), 1e-13);
    snprintf(what, sizeof what, "logged: value[%d]", i);
    check_close(what, log_values[i], sin(x[i]) * x[i], 1e-13);
  }
  return check_exit();
}
