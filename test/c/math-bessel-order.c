// RUN: %check-c %s %t
// Bessel functions of integer order in both modes: jn(n, x)' = (J(n-1) -
// J(n+1)) / 2, yn likewise, for orders 0 (which asks for J(-1) = -J(1)),
// positive and negative, against J(n-1) - n/x J(n) and central
// differences; at x = 0; the float and long double versions; and an order
// read from memory that has a shadow, whose integer carries no derivative.
#define _GNU_SOURCE
#include <kinase.h>
#include <math.h>
#include <stdio.h>
#include "check.h"

float __enzyme_autodiff_float(void *, ...);
float __enzyme_fwddiff_float(void *, ...);

static double f_jn(int n, double x) { return jn(n, x); }
static double f_yn(int n, double x) { return yn(n, x); }
static float f_jnf(int n, float x) { return jnf(n, x); }
static float f_ynf(int n, float x) { return ynf(n, x); }
/* long double: the derivatives call j1l and jnl, not the double versions. */
static double f_j0l(double x) { return (double)j0l((long double)x); }
static double f_jnl(int n, double x) { return (double)jnl(n, (long double)x); }

struct bessel_args {
  int n;
  double x;
};
static double f_struct(const struct bessel_args *p) { return jn(p->n, p->x) * yn(p->n, p->x); }

/* Z(n)' by the other recurrence, Z(n-1) - n/x Z(n). */
static double other_jn(int n, double x) { return jn(n - 1, x) - n / x * jn(n, x); }
static double other_yn(int n, double x) { return yn(n - 1, x) - n / x * yn(n, x); }

static double central(double (*z)(int, double), int n, double x)
{
  double h = central_difference_step(x);
  return (z(n, x + h) - z(n, x - h)) / (2 * h);
}

int main(void)
{
  char what[96];
  static const int orders[] = {0, 1, 2, 5, -1, -4};
  static const double xs[] = {0.3, 1.7, 4.2, 12.5};
  for (size_t i = 0; i < sizeof orders / sizeof *orders; i++)
    for (size_t k = 0; k < sizeof xs / sizeof *xs; k++) {
      int n = orders[i];
      double x = xs[k];
#define CHECK_ORDER(f, other, z)                                                                   \
  do {                                                                                             \
    double want = other(n, x);                                                                     \
    snprintf(what, sizeof what, #f "(%d, %g) test against central difference", n, x);             \
    check_close(what, want, central(z, n, x), 1e-6);                                               \
    snprintf(what, sizeof what, #f "(%d, %g), reverse", n, x);                                    \
    check_close(what, __enzyme_autodiff((void *)f, enzyme_const, n, enzyme_out, x), want, 1e-12);  \
    snprintf(what, sizeof what, #f "(%d, %g), forward", n, x);                                    \
    check_close(what, __enzyme_fwddiff((void *)f, enzyme_const, n, enzyme_dup, x, 1.0), want,      \
                1e-12);                                                                            \
  } while (0)
      CHECK_ORDER(f_jn, other_jn, jn);
      CHECK_ORDER(f_jnl, other_jn, jn);
      CHECK_ORDER(f_yn, other_yn, yn);
#define CHECK_FLOAT(f, other)                                                                      \
  do {                                                                                             \
    double want = other(n, (float)x);                                                              \
    snprintf(what, sizeof what, #f "(%d, %g), reverse", n, x);                                    \
    check_close(what, __enzyme_autodiff_float((void *)f, enzyme_const, n, enzyme_out, (float)x),   \
                want, 1e-4);                                                                       \
    snprintf(what, sizeof what, #f "(%d, %g), forward", n, x);                                    \
    check_close(what,                                                                              \
                __enzyme_fwddiff_float((void *)f, enzyme_const, n, enzyme_dup, (float)x, 1.0f),    \
                want, 1e-4);                                                                       \
  } while (0)
      CHECK_FLOAT(f_jnf, other_jn);
      CHECK_FLOAT(f_ynf, other_yn);
    }

  for (size_t k = 0; k < sizeof xs / sizeof *xs; k++) {
    double x = xs[k];
    snprintf(what, sizeof what, "j0l at %g, reverse", x);
    check_close(what, __enzyme_autodiff((void *)f_j0l, enzyme_out, x), -j1(x), 1e-12);
    snprintf(what, sizeof what, "j0l at %g, forward", x);
    check_close(what, __enzyme_fwddiff((void *)f_j0l, enzyme_dup, x, 1.0), -j1(x), 1e-12);
  }

  /* At x = 0: J0' = -J1(0) = 0, J1' = 1/2, J2' = 0. */
  static const double at_zero[] = {0.0, 0.5, 0.0};
  for (int n = 0; n < 3; n++) {
    snprintf(what, sizeof what, "jn(%d, 0), reverse", n);
    check_close(what, __enzyme_autodiff((void *)f_jn, enzyme_const, n, enzyme_out, 0.0), at_zero[n], 1e-15);
    snprintf(what, sizeof what, "jn(%d, 0), forward", n);
    check_close(what, __enzyme_fwddiff((void *)f_jn, enzyme_const, n, enzyme_dup, 0.0, 1.0), at_zero[n],
                1e-15);
  }

  /* The order in shadowed memory: forward mode gives the integer a tangent
   * (its bits), which must not enter the derivative. */
  struct bessel_args p = {3, 2.5}, dp = {0, 1.0};
  double want = other_jn(3, 2.5) * yn(3, 2.5) + jn(3, 2.5) * other_yn(3, 2.5);
  check_close("jn * yn, order in memory, forward", __enzyme_fwddiff((void *)f_struct, enzyme_dup, &p, &dp),
              want, 1e-12);
  dp.x = 0;
  __enzyme_autodiff((void *)f_struct, enzyme_dup, &p, &dp);
  check_close("jn * yn, order in memory, reverse", dp.x, want, 1e-12);
  check_true("the order's shadow is left alone", dp.n == 0);
  return check_exit();
}
