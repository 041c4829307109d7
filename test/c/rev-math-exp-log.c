// RUN: %check-c %s %t
// Reverse mode through exponentials, logarithms and roots: exp exp2 expm1
// log log2 log10 log1p sqrt cbrt, and a composition.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);

static double f_exp(double x) { return exp(x); }
static double f_exp2(double x) { return exp2(x); }
static double f_expm1(double x) { return expm1(x); }
static double f_log(double x) { return log(x); }
static double f_log2(double x) { return log2(x); }
static double f_log10(double x) { return log10(x); }
static double f_log1p(double x) { return log1p(x); }
static double f_sqrt(double x) { return sqrt(x); }
static double f_cbrt(double x) { return cbrt(x); }
/* log(1 + exp(x)) (softplus): derivative the logistic function */
static double f_softplus(double x) { return log(1.0 + exp(x)); }
/* exp(-x^2 / 2) / sqrt(x^2 + 1) */
static double f_comp(double x) { return exp(-x * x / 2) / sqrt(x * x + 1); }

#define CHECK1(name, f, x, want)                                                         \
  do {                                                                                  \
    double g_ = __enzyme_autodiff((void *)f, enzyme_out, x);                             \
    check_close(name, g_, want, 1e-12);                                                  \
    check_close(name " vs central difference", g_, central_difference(f, x), 1e-6);      \
  } while (0)

int main(void)
{
  volatile double vx = 1.35;
  double x = vx;

  CHECK1("exp", f_exp, x, exp(x));
  CHECK1("exp2", f_exp2, x, exp2(x) * log(2.0));
  CHECK1("expm1", f_expm1, x, exp(x));
  CHECK1("log", f_log, x, 1 / x);
  CHECK1("log2", f_log2, x, 1 / (x * log(2.0)));
  CHECK1("log10", f_log10, x, 1 / (x * log(10.0)));
  CHECK1("log1p", f_log1p, x, 1 / (1 + x));
  CHECK1("sqrt", f_sqrt, x, 0.5 / sqrt(x));
  CHECK1("cbrt", f_cbrt, x, 1 / (3 * cbrt(x) * cbrt(x)));
  CHECK1("cbrt of a negative", f_cbrt, -x, 1 / (3 * cbrt(x) * cbrt(x)));
  CHECK1("softplus", f_softplus, x, 1 / (1 + exp(-x)));
  double s = x * x + 1;
  CHECK1("exp/sqrt", f_comp, x, exp(-x * x / 2) * (-x / sqrt(s) - x / (s * sqrt(s))));
  return check_exit();
}
