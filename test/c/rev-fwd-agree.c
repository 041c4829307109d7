// RUN: %check-c %s %t
// Reverse mode agrees with forward mode (the dot-product test): for random
// directions u (inputs) and w (outputs), w . (J u) from __enzyme_fwddiff
// equals (J^T w) . u from __enzyme_autodiff. On a small nonlinear map, on a
// scalar function of an array (tangent = gradient . u) and on a scalar
// function of two scalars and a constant. Each is also compared with a
// central difference along u, so that zero gradients cannot pass.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
void __enzyme_autodiff_v(void *, ...);
void __enzyme_fwddiff_v(void *, ...);
double __enzyme_fwddiff(void *, ...);
typedef struct { double a, b; } Grad2;
Grad2 __enzyme_autodiff_2(void *, ...);

static unsigned long long rng_state = 88172645463325252ULL;
static double rnd(void) /* uniform in [-1, 1) */
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static double dotn(const double *a, const double *b, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

/* R^4 -> R^3 */
static void map(const double *x, double *y)
{
  y[0] = x[0] * x[1] + sin(x[2]);
  y[1] = exp(x[3]) * x[0] - x[2] * x[2];
  y[2] = x[1] / (1.0 + x[3] * x[3]) + x[0] * x[2] * x[3];
}

static double scalar3(double a, double b, double c) { return a * exp(b) + cos(a * c) - b * c * c; }

/* log(sum exp(x_i)) + x_0 x_{n-1} */
static double logsumexp(const double *x, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += exp(x[i]);
  return log(s) + x[0] * x[n - 1];
}

/* w . map(x + h u) */
static double wmap(const double *w, const double *x, const double *u, double h)
{
  double xp[4], y[3];
  for (int i = 0; i < 4; i++)
    xp[i] = x[i] + h * u[i];
  map(xp, y);
  return dotn(w, y, 3);
}

static double lse_along(const double *v, const double *u, double h, int n)
{
  double vp[16];
  for (int i = 0; i < n; i++)
    vp[i] = v[i] + h * u[i];
  return logsumexp(vp, n);
}

int main(void)
{
  const double h = 1e-6;
  /* map */
  double x[4], u[4], y[3], ydot[3], w[3], xb[4], yb[3];
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < 4; i++) {
      x[i] = rnd();
      u[i] = rnd();
      xb[i] = 0.0;
    }
    for (int i = 0; i < 3; i++) {
      w[i] = rnd();
      yb[i] = w[i];
      ydot[i] = 0.0;
    }
    __enzyme_fwddiff_v((void *)map, enzyme_dup, x, u, enzyme_dup, y, ydot);
    __enzyme_autodiff_v((void *)map, enzyme_dup, x, xb, enzyme_dup, y, yb);
    char what[64];
    snprintf(what, sizeof what, "map, trial %d: w.(J u) == (J^T w).u", k);
    check_close(what, dotn(xb, u, 4), dotn(w, ydot, 3), 1e-12);
    snprintf(what, sizeof what, "map, trial %d: (J^T w).u vs central difference", k);
    check_close(what, dotn(xb, u, 4), (wmap(w, x, u, h) - wmap(w, x, u, -h)) / (2 * h), 1e-5);
  }

  /* scalar function of an array */
  enum { N = 6 };
  double v[N], vu[N], vb[N];
  for (int i = 0; i < N; i++) {
    v[i] = rnd();
    vu[i] = rnd();
    vb[i] = 0.0;
  }
  __enzyme_autodiff_v((void *)logsumexp, enzyme_dup, v, vb, N);
  double tangent = __enzyme_fwddiff((void *)logsumexp, enzyme_dup, v, vu, N);
  check_close("logsumexp: grad.u == tangent", dotn(vb, vu, N), tangent, 1e-12);
  check_close("logsumexp: grad.u vs central difference", dotn(vb, vu, N),
              (lse_along(v, vu, h, N) - lse_along(v, vu, -h, N)) / (2 * h), 1e-5);

  /* scalar function of two scalars and a constant */
  double a = rnd(), b = rnd(), c = rnd(), ua = rnd(), uc = rnd();
  Grad2 g2 = __enzyme_autodiff_2((void *)scalar3, a, enzyme_const, b, c);
  tangent = __enzyme_fwddiff((void *)scalar3, enzyme_dup, a, ua, enzyme_const, b, enzyme_dup, c, uc);
  check_close("scalar3, b const: grad.u == tangent", g2.a * ua + g2.b * uc, tangent, 1e-12);
  check_close("scalar3, b const: grad.u vs central difference", g2.a * ua + g2.b * uc,
              (scalar3(a + h * ua, b, c + h * uc) - scalar3(a - h * ua, b, c - h * uc)) / (2 * h), 1e-5);
  return check_exit();
}
