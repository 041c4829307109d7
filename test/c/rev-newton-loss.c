// RUN: %check-c %s %t
// Loops that run until the data says stop: Newton's method to convergence
// (the derivative through the iterations tends to the implicit-function
// derivative), and a loss whose prediction is the root of an equation in
// the parameters, found by Newton iteration inside the loss.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
typedef struct { double a, b; } Grad2;
Grad2 __enzyme_autodiff_2(void *, ...);

/* sqrt(a) by Newton from 1, iterating while the step is large */
static double newton_sqrt(double a)
{
  double x = a > 1 ? a : 1, step;
  do {
    step = 0.5 * (x - a / x);
    x -= step;
  } while (fabs(step) > 1e-15 * x);
  return x;
}

/* the root x of x^3 + b x - c = 0 (b > 0: one real root) */
static double cubic_root(double b, double c)
{
  double x = c / (b + 1);
  for (int it = 0; it < 100; it++) {
    double f = x * x * x + b * x - c, fp = 3 * x * x + b;
    double dx = f / fp;
    x -= dx;
    if (fabs(dx) < 1e-15 * (1 + fabs(x)))
      break;
  }
  return x;
}

/* squared errors of root(b, c_k) against targets, summed */
static double root_loss(double b, const double *c, const double *target, int n)
{
  double s = 0;
  for (int k = 0; k < n; k++) {
    double r = cubic_root(b, c[k]) - target[k];
    s += r * r;
  }
  return s;
}

int main(void)
{
  for (double a = 0.3; a < 50; a *= 3.7) {
    char what[48];
    snprintf(what, sizeof what, "newton sqrt at %g: reverse", a);
    check_close(what, __enzyme_autodiff((void *)newton_sqrt, a), 0.5 / sqrt(a), 1e-10);
    snprintf(what, sizeof what, "newton sqrt at %g: forward", a);
    check_close(what, __enzyme_fwddiff((void *)newton_sqrt, a, 1.0), 0.5 / sqrt(a), 1e-10);
  }

  double b = 1.7, c = 2.3;
  double x = cubic_root(b, c), fp = 3 * x * x + b;
  Grad2 g = __enzyme_autodiff_2((void *)cubic_root, enzyme_out, b, enzyme_out, c);
  check_close("cubic root: residual", x * x * x + b * x - c, 0, 1e-14);
  check_close("cubic root: d/db", g.a, -x / fp, 1e-10);
  check_close("cubic root: d/dc", g.b, 1 / fp, 1e-10);
  check_close("cubic root: forward d/dc", __enzyme_fwddiff((void *)cubic_root, enzyme_const, b, c, 1.0), 1 / fp, 1e-10);

  enum { N = 4 };
  const double cs[N] = {0.5, 1.0, 2.5, 4.0}, target[N] = {0.3, 0.6, 1.0, 1.4};
  double dcs[N] = {0};
  double db = __enzyme_autodiff((void *)root_loss, enzyme_out, b, enzyme_dup, cs, dcs, enzyme_const, target,
                                enzyme_const, N);
  double want_db = 0;
  for (int k = 0; k < N; k++) {
    double r = cubic_root(b, cs[k]), d = 3 * r * r + b, e = r - target[k];
    want_db += 2 * e * (-r / d);
    char what[32];
    snprintf(what, sizeof what, "root loss: dc[%d]", k);
    check_close(what, dcs[k], 2 * e / d, 1e-10);
  }
  check_close("root loss: db", db, want_db, 1e-10);
  check_close("root loss: forward db",
              __enzyme_fwddiff((void *)root_loss, b, 1.0, enzyme_const, cs, enzyme_const, target, enzyme_const, N),
              want_db, 1e-10);
  return check_exit();
}
