// RUN: %check-c %s %t
// The gamma functions in both modes. lgamma' is digamma, which libm lacks:
// Kinase emits its own (rules/digamma.c), checked here to 1e-13 against
// closed forms: psi(n) = -gamma + H(n-1), psi(n + 1/2) = -gamma - 2 ln 2 +
// sum 2/(2k - 1), psi(1/4), psi(3/4), the recurrence below 0, the
// asymptotic series for large x and the pole at 0 for tiny x. tgamma' =
// tgamma psi; lgamma_r, the float and the long double versions, against
// the same values and central differences.
#define _GNU_SOURCE
#include <kinase.h>
#include <math.h>
#include <stdio.h>
#include "check.h"

float __enzyme_autodiff_float(void *, ...);
float __enzyme_fwddiff_float(void *, ...);

static const long double EULER = 0.577215664901532860606512090082402431L;
static const long double LN2 = 0.693147180559945309417232121458176568L;
static const long double PI = 3.141592653589793238462643383279502884L;

static double f_lgamma(double x) { return lgamma(x); }
static double f_tgamma(double x) { return tgamma(x); }
static double f_lgamma_r(double x)
{
  int sign;
  double l = lgamma_r(x, &sign);
  return l * sign;
}
static double f_lgammal(double x) { return (double)lgammal((long double)x); }
static float f_lgammaf(float x) { return lgammaf(x); }
static float f_tgammaf(float x) { return tgammaf(x); }
static float f_lgammaf_r(float x)
{
  int sign;
  return lgammaf_r(x, &sign);
}
/* Gamma from a log-likelihood: sum of lgamma(a + k) over data, a active. */
static double loglik(double a, const double *k, int n)
{
  double s = 0;
  for (int i = 0; i < n; i++)
    s += lgamma(a + k[i]) - lgamma(a);
  return s;
}

/* psi at x, from closed forms where x is an integer, a half-integer, 1/4,
 * 3/4, tiny or large, and the recurrence psi(x) = psi(x + 1) - 1/x below. */
static long double digamma_exact(long double x)
{
  if (x < 0)
    return digamma_exact(x + 1) - 1 / x;
  if (x < 1e-6L)
    return -1 / x - EULER + PI * PI / 6 * x;
  if (x > 1e6L)
    return logl(x) - 1 / (2 * x) - 1 / (12 * x * x);
  if (x == 0.25L)
    return -EULER - PI / 2 - 3 * LN2;
  if (x == 0.75L)
    return -EULER + PI / 2 - 3 * LN2;
  long double s = -EULER, whole = floorl(x);
  if (x == whole) {
    for (long k = 1; k < (long)whole; k++)
      s += 1.0L / k;
  } else if (x - whole == 0.5L) {
    s -= 2 * LN2;
    for (long k = 1; k <= (long)whole; k++)
      s += 2.0L / (2 * k - 1);
  } else {
    return NAN;
  }
  return s;
}

/* Macros, not functions: the differentiated function must be known where
 * __enzyme_* is called. */
#define CHECK_BOTH(f, x, want, rtol)                                                               \
  do {                                                                                             \
    snprintf(what, sizeof what, #f "' at %.17g, reverse", (double)(x));                           \
    check_close(what, __enzyme_autodiff((void *)f, enzyme_out, x), want, rtol);                    \
    snprintf(what, sizeof what, #f "' at %.17g, forward", (double)(x));                           \
    check_close(what, __enzyme_fwddiff((void *)f, enzyme_dup, x, 1.0), want, rtol);                \
  } while (0)

#define CHECK_BOTH_FLOAT(f, x, want)                                                               \
  do {                                                                                             \
    snprintf(what, sizeof what, #f "' at %.9g, reverse", (double)(x));                            \
    check_close(what, __enzyme_autodiff_float((void *)f, enzyme_out, x), want, 1e-5);              \
    snprintf(what, sizeof what, #f "' at %.9g, forward", (double)(x));                            \
    check_close(what, __enzyme_fwddiff_float((void *)f, enzyme_dup, x, 1.0f), want, 1e-5);         \
  } while (0)

int main(void)
{
  char what[96];
  static const double exact_points[] = {1e-9, 0.25, 0.5, 0.75, 1, 1.5, 2, 2.5, 3, 6, 9.5, 10,
                                        11, 40.5, 100, 1000, 3e7, 1e15, -0.5, -1.5, -7.5, -0.75};
  for (size_t i = 0; i < sizeof exact_points / sizeof *exact_points; i++) {
    double x = exact_points[i];
    double psi = (double)digamma_exact(x);
    CHECK_BOTH(f_lgamma, x, psi, 1e-13);
    CHECK_BOTH(f_lgamma_r, x, psi * (tgamma(x) < 0 ? -1 : 1), 1e-13);
    CHECK_BOTH(f_lgammal, x, psi, 1e-13);
    if (x > -7 && x < 150)
      CHECK_BOTH(f_tgamma, x, tgamma(x) * psi, 1e-13);
    if (fabs(x) > 1e-3 && fabs(x) < 1e6) {
      CHECK_BOTH_FLOAT(f_lgammaf, (float)x, (double)digamma_exact((float)x));
      CHECK_BOTH_FLOAT(f_lgammaf_r, (float)x, (double)digamma_exact((float)x));
    }
    if (fabs(x) > 1e-3 && fabs(x) < 30)
      CHECK_BOTH_FLOAT(f_tgammaf, (float)x,
                       tgamma((float)x) * (double)digamma_exact((float)x));
  }

  /* Anywhere else (the roots of psi near 1.46 and -0.50 included), against
   * central differences. */
  static const double points[] = {0.013, 0.7, 1.4616321449683623, 2.9, 5.999, 7.3, 23.4,
                                  -0.504, -2.7, -3.1, -12.25};
  for (size_t i = 0; i < sizeof points / sizeof *points; i++) {
    double x = points[i];
    CHECK_BOTH(f_lgamma, x, central_difference(f_lgamma, x), 1e-6);
    CHECK_BOTH(f_tgamma, x, central_difference(f_tgamma, x), 1e-6);
  }

  /* Gradient of a sum: d/da sum lgamma(a + k) - lgamma(a) */
  double k[3] = {0, 2, 5}, a = 1.5;
  double want = (double)(digamma_exact(1.5L) + digamma_exact(3.5L) + digamma_exact(6.5L) -
                         3 * digamma_exact(1.5L));
  check_close("loglik, reverse", __enzyme_autodiff((void *)loglik, enzyme_out, a, enzyme_const, k, 3),
              want, 1e-13);
  check_close("loglik, forward",
              __enzyme_fwddiff((void *)loglik, enzyme_dup, a, 1.0, enzyme_const, k, 3), want, 1e-13);
  return check_exit();
}
