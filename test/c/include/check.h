/* check.h: the few helpers of the self-checking C tests (header only, C11).
 *
 *   check_close("f'(2)", got, want, 1e-12);   prints "FAIL f'(2): got .. want .."
 *   check_true("converged", ok);              prints "FAIL converged" when !ok
 *   central_difference(f, x)                  (f(x+h) - f(x-h)) / 2h, for f: double -> double
 *   return check_exit();                      prints PASS, or how many checks failed;
 *                                             returns the exit status (0 or 1)
 *
 * A central difference is good to about 1e-9 relative on smooth functions of
 * moderate size: compare against it with rtol around 1e-6.
 */
#ifndef KINASE_TEST_CHECK_H
#define KINASE_TEST_CHECK_H

#include <float.h>
#include <math.h>
#include <stdio.h>

static int check_count_;
static int check_failures_;

/* |got - want| <= rtol * max(|want|, 1): relative for |want| >= 1, absolute
 * below. NaN never passes. */
static inline int check_close(const char *what, double got, double want, double rtol) {
  check_count_++;
  double tol = rtol * fmax(fabs(want), 1.0);
  if (fabs(got - want) <= tol)
    return 1;
  check_failures_++;
  printf("FAIL %s: got %.17g want %.17g (error %.3g, tolerance %.3g)\n", what, got, want,
         fabs(got - want), tol);
  return 0;
}

static inline int check_true(const char *what, int ok) {
  check_count_++;
  if (ok)
    return 1;
  check_failures_++;
  printf("FAIL %s\n", what);
  return 0;
}

/* A step for central differences at x: cbrt(epsilon) scaled by |x|, rounded
 * so that x + h is exactly representable. */
static inline double central_difference_step(double x) {
  double h = cbrt(DBL_EPSILON) * fmax(fabs(x), 1.0);
  volatile double xh = x + h;
  return xh - x;
}

static inline double central_difference(double (*f)(double), double x) {
  double h = central_difference_step(x);
  return (f(x + h) - f(x - h)) / (2 * h);
}

static inline int check_exit(void) {
  if (check_failures_ == 0) {
    printf("PASS (%d checks)\n", check_count_);
    return 0;
  }
  printf("FAILED %d of %d checks\n", check_failures_, check_count_);
  return 1;
}

#endif
