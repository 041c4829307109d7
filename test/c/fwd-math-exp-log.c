// RUN: %check-c %s %t
// Forward mode through the libm exponential and logarithm family: sqrt,
// exp, exp2, exp10, expm1, log, log2, log10, log1p. Each tangent is
// compared with the analytic derivative and a central finite difference.
#define _GNU_SOURCE /* exp10 */
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

static double f_sqrt(double x) { return sqrt(x); }
static double f_exp(double x) { return exp(x); }
static double f_exp2(double x) { return exp2(x); }
static double f_exp10(double x) { return exp10(x); }
static double f_expm1(double x) { return expm1(x); }
static double f_log(double x) { return log(x); }
static double f_log2(double x) { return log2(x); }
static double f_log10(double x) { return log10(x); }
static double f_log1p(double x) { return log1p(x); }
/* Composition: chain rule through two calls. */
static double f_chain(double x) { return log(1.0 + exp(x)) * sqrt(x); }

static double fd1(double (*f)(double), double x)
{
  double h = 1e-6 * fmax(1.0, fabs(x));
  volatile double xp = x + h, xm = x - h;
  return (f(xp) - f(xm)) / (xp - xm);
}

static void check_d(const char *what, double got, double exact, double fd)
{
  char msg[160];
  snprintf(msg, sizeof msg, "%s (analytic)", what);
  check_close(msg, got, exact, 1e-10);
  snprintf(msg, sizeof msg, "%s (finite difference)", what);
  check_close(msg, got, fd, 1e-6);
}

#define D1(f, x, want) \
  check_d(#f, __enzyme_fwddiff((void *)f, enzyme_dup, (x), 1.0), (want), fd1(f, (x)))

int main(void)
{
  volatile double va = 0.7, vb = 2.3, vc = -0.4;
  double a = va, b = vb, c = vc;

  D1(f_sqrt, b, 0.5 / sqrt(b));
  D1(f_exp, c, exp(c));
  D1(f_exp2, b, exp2(b) * M_LN2);
  D1(f_exp10, a, exp10(a) * M_LN10);
  D1(f_expm1, c, exp(c));
  D1(f_log, b, 1.0 / b);
  D1(f_log2, a, 1.0 / (a * M_LN2));
  D1(f_log10, b, 1.0 / (b * M_LN10));
  D1(f_log1p, c, 1.0 / (1.0 + c));
  double e = exp(a);
  D1(f_chain, a, e / (1.0 + e) * sqrt(a) + log(1.0 + e) * 0.5 / sqrt(a));

  /* A seed other than 1 scales the tangent. */
  check_close("exp with seed 3", __enzyme_fwddiff((void *)f_exp, enzyme_dup, c, 3.0), 3.0 * exp(c), 1e-12);
  /* Constant argument, foldable at -O2. */
  check_close("log'(4) folded", __enzyme_fwddiff((void *)f_log, enzyme_dup, 4.0, 1.0), 0.25, 1e-14);
  return check_exit();
}
