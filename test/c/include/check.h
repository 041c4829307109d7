/* check.h: the few helpers of the self-checking C tests (header only, C11).
 *
 *   check_close("f'(2)", got, want, 1e-12);   prints "FAIL f'(2): got .. want .."
 *   check_true("converged", ok);              prints "FAIL converged" when !ok
 *   central_difference(f, x)                  (f(x+h) - f(x-h)) / 2h, for f: double -> double
 *   check_both_modes(f, x, rtol);             f'(x) from __enzyme_autodiff and __enzyme_fwddiff
 *                                             against central_difference(f, x)
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

/* A macro, because a derivative request needs the function itself, not a
 * pointer held in a variable. The test declares __enzyme_autodiff and
 * __enzyme_fwddiff returning double. */
#define check_both_modes(f, x, rtol)                                                               \
  do {                                                                                             \
    double check_fd_ = central_difference(f, x);                                                   \
    char check_what_[96];                                                                          \
    snprintf(check_what_, sizeof check_what_, #f " at %g, reverse", (x));                          \
    check_close(check_what_, __enzyme_autodiff((void *)f, (x)), check_fd_, rtol);                  \
    snprintf(check_what_, sizeof check_what_, #f " at %g, forward", (x));                          \
    check_close(check_what_, __enzyme_fwddiff((void *)f, (x), 1.0), check_fd_, rtol);              \
  } while (0)

static inline int check_exit(void) {
  if (check_failures_ == 0) {
    printf("PASS (%d checks)\n", check_count_);
    return 0;
  }
  printf("FAILED %d of %d checks\n", check_failures_, check_count_);
  return 1;
}

#endif
