// RUN: %check-c %s %t
// Reverse loops whose sums have loop-invariant factors: Kinase sums the
// varying factors alone and multiplies by the invariant ones after the loop
// (lib/reverse/factor.c). Each shape against its analytic gradient:
//   gauss: sum ((x_k - mu) / s)^2 + w sum (x_k - mu)   (a division by an
//          invariant, two sums sharing x_k - mu)
//   until: the same sum with a break on the data (two exits)
//   drain: b -= a x_k y_j over a nested pair of loops (a subtraction, an
//          inner sum feeding an outer one)
//   ratio: sum c / x_k (a varying divisor: not split)
//   skip:  gauss's sum without the points above a cutoff (`continue`: the
//          sum passes through a phi that merges added and not added)
//   masked: a sum that adds one of two terms depending on the data
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_const, enzyme_out;
typedef struct { double a, b, c; } Grad3;
Grad3 __enzyme_autodiff3(void *, ...);
double __enzyme_autodiff1(void *, ...);

enum { N = 40 };

static double gauss(const double *x, int n, double mu, double s, double w) {
  double q = 0, lin = 0;
  for (int k = 0; k < n; k++) {
    double d = (x[k] - mu) / s;
    q += d * d;
    lin += w * (x[k] - mu);
  }
  return q + lin;
}

static double until(const double *x, int n, double mu, double s, double w) {
  double q = 0;
  for (int k = 0; k < n; k++) {
    if (x[k] > 2.49)
      break;
    double d = (x[k] - mu) * (1 / s);
    q += w * d * d;
  }
  return q;
}

static double drain(const double *x, const double *y, int n, double a) {
  double b = 1;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < 3; j++)
      b -= a * x[i] * y[j];
  return b * b;
}

static double ratio(const double *x, int n, double c) {
  double r = 0;
  for (int k = 0; k < n; k++)
    r += c / x[k];
  return r;
}

static double skip(const double *x, int n, double mu, double s, double w) {
  double q = 0;
  for (int k = 0; k < n; k++) {
    if (x[k] > 2.2)
      continue;
    double d = (x[k] - mu) / s;
    q += w * d * d;
  }
  return q;
}

static double masked(const double *x, int n, double mu, double s, double w) {
  double q = 0;
  for (int k = 0; k < n; k++) {
    double d = (x[k] - mu) / s;
    if (x[k] > 1.5)
      q += d * d;
    else
      q -= w * d;
  }
  return q;
}

static void check_gradient(const char *what, Grad3 g, double dmu, double ds, double dw) {
  static const char *const wrt[3] = {"mu", "s", "w"};
  double got[3] = {g.a, g.b, g.c}, want[3] = {dmu, ds, dw};
  for (int i = 0; i < 3; i++) {
    char name[64];
    snprintf(name, sizeof name, "%s d/d%s", what, wrt[i]);
    check_close(name, got[i], want[i], 1e-12);
  }
}

int main(void) {
  double x[N], y[3] = {0.5, -1.25, 2.0};
  for (int k = 0; k < N; k++)
    x[k] = 1.5 + sin(0.7 * k);
  double mu = 0.3, s = 1.7, w = -0.4, a = 0.02, c = 1.3;

  Grad3 g = __enzyme_autodiff3((void *)gauss, enzyme_const, x, enzyme_const, N, enzyme_out, mu, enzyme_out, s,
                               enzyme_out, w);
  double dmu = 0, ds = 0, dw = 0;
  for (int k = 0; k < N; k++) {
    dmu += -2 * (x[k] - mu) / (s * s) - w;
    ds += -2 * (x[k] - mu) * (x[k] - mu) / (s * s * s);
    dw += x[k] - mu;
  }
  check_gradient("gauss", g, dmu, ds, dw);

  g = __enzyme_autodiff3((void *)until, enzyme_const, x, enzyme_const, N, enzyme_out, mu, enzyme_out, s,
                         enzyme_out, w);
  dmu = ds = dw = 0;
  int stop = 0;
  for (int k = 0; k < N && x[k] <= 2.49; k++, stop++) {
    double d = (x[k] - mu) / s;
    dmu += -2 * w * d / s;
    ds += -2 * w * d * d / s;
    dw += d * d;
  }
  check_true("until stops inside the data", stop > 0 && stop < N);
  check_gradient("until", g, dmu, ds, dw);

  double sx = 0, sy = y[0] + y[1] + y[2];
  for (int i = 0; i < N; i++)
    sx += x[i];
  double b = 1 - a * sx * sy;
  check_close("drain d/da", __enzyme_autodiff1((void *)drain, enzyme_const, x, enzyme_const, y, enzyme_const, N,
                                               enzyme_out, a),
              -2 * b * sx * sy, 1e-12);

  double inv = 0;
  for (int k = 0; k < N; k++)
    inv += 1 / x[k];
  check_close("ratio d/dc", __enzyme_autodiff1((void *)ratio, enzyme_const, x, enzyme_const, N, enzyme_out, c),
              inv, 1e-12);
  g = __enzyme_autodiff3((void *)skip, enzyme_const, x, enzyme_const, N, enzyme_out, mu, enzyme_out, s,
                         enzyme_out, w);
  dmu = ds = dw = 0;
  int kept = 0;
  for (int k = 0; k < N; k++) {
    if (x[k] > 2.2)
      continue;
    double d = (x[k] - mu) / s;
    dmu += -2 * w * d / s;
    ds += -2 * w * d * d / s;
    dw += d * d;
    kept++;
  }
  check_true("skip leaves points out", kept > 0 && kept < N);
  check_gradient("skip", g, dmu, ds, dw);

  g = __enzyme_autodiff3((void *)masked, enzyme_const, x, enzyme_const, N, enzyme_out, mu, enzyme_out, s,
                         enzyme_out, w);
  dmu = ds = dw = 0;
  for (int k = 0; k < N; k++) {
    double d = (x[k] - mu) / s;
    if (x[k] > 1.5) {
      dmu += -2 * d / s;
      ds += -2 * d * d / s;
    } else {
      dmu += w / s;
      ds += w * d / s;
      dw -= d;
    }
  }
  check_gradient("masked", g, dmu, ds, dw);
  return check_exit();
}
