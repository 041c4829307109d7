// RUN: %check-c %s %t
// Forward mode through calls of helper functions (external and static,
// inlinable and not), called several times with different activity: an
// argument is constant at one call site and active at another, and one call
// is entirely constant.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

/* Non-static, not inlined. */
__attribute__((noinline)) double fwd_helper_sq(double a, double b) { return a * a * b; }
/* Static. */
static double helper_exp(double a) { return exp(a) * a; }
/* Writes its result through a pointer. */
__attribute__((noinline)) static void helper_store(double *out, double v) { *out = v * v * v; }

/* 2 x^2 + y^2 x + x e^x + 3 e^3 + x^3 */
static double outer(double x, double y)
{
  double out;
  helper_store(&out, x);
  return fwd_helper_sq(x, 2.0) + fwd_helper_sq(y, x) + helper_exp(x) + helper_exp(3.0) + out;
}

/* The same helper called on its own result. */
static double twice(double x) { return helper_exp(helper_exp(x)); }

/* A call chain three deep. */
static double level3(double x) { return sin(x) * x; }
static double level2(double x) { return level3(x * 2.0) + x; }
static double level1(double x) { return level2(x) * level2(1.0); }

int main(void)
{
  volatile double vx = 0.6, vy = -1.4;
  double x = vx, y = vy;

  check_close("outer d/dx", __enzyme_fwddiff((void *)outer, enzyme_dup, x, 1.0, enzyme_dup, y, 0.0),
              4 * x + y * y + exp(x) * (1 + x) + 3 * x * x, 1e-13);
  check_close("outer d/dy", __enzyme_fwddiff((void *)outer, enzyme_dup, x, 0.0, enzyme_dup, y, 1.0), 2 * x * y,
              1e-13);
  check_close("outer d/dy, x const", __enzyme_fwddiff((void *)outer, enzyme_const, x, enzyme_dup, y, 1.0),
              2 * x * y, 1e-13);
  /* The helper may also be differentiated on its own. */
  check_close("helper alone", __enzyme_fwddiff((void *)fwd_helper_sq, enzyme_dup, x, 1.0, enzyme_dup, y, 1.0),
              2 * x * y + x * x, 1e-13);

  /* g(u) = u e^u, g' = e^u (1 + u); (g o g)' = g'(g(x)) g'(x) */
  double g = exp(x) * x;
  check_close("helper of helper", __enzyme_fwddiff((void *)twice, enzyme_dup, x, 1.0),
              exp(g) * (1 + g) * exp(x) * (1 + x), 1e-12);

  /* level2(x) = 2x sin(2x) + x; level2' = 2 sin(2x) + 4x cos(2x) + 1 */
  double l2c = 2.0 * sin(2.0) + 1.0;
  check_close("call chain", __enzyme_fwddiff((void *)level1, enzyme_dup, x, 1.0),
              (2 * sin(2 * x) + 4 * x * cos(2 * x) + 1) * l2c, 1e-12);
  return check_exit();
}
