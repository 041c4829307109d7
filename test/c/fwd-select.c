// RUN: %check-c %s %t
// Forward mode through fcmp and select: ternaries and piecewise functions.
// The tangent follows the branch the primal took.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

static double relu(double x) { return x > 0.0 ? x : 0.0; }
static double leaky(double x) { return x >= 0.0 ? x : 0.1 * x; }
/* Continuous piecewise function: x^2 below 1, 2x - 1 above. */
static double piece(double x) { return x < 1.0 ? x * x : 2.0 * x - 1.0; }
static double larger(double x, double y) { return x > y ? x : y; }
static double absval(double x) { return x < 0.0 ? -x : x; }
/* Select between two active values on an integer condition. */
static double pick(double x, double y, int which) { return which ? x * y : x + y; }
/* Clamp with two nested selects. */
static double clamp(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }

int main(void)
{
  volatile double vp = 2.5, vn = -1.5, vs = 0.75;
  double p = vp, n = vn, s = vs;

  check_close("relu'(2.5)", __enzyme_fwddiff((void *)relu, enzyme_dup, p, 1.0), 1.0, 1e-15);
  check_close("relu'(-1.5)", __enzyme_fwddiff((void *)relu, enzyme_dup, n, 1.0), 0.0, 1e-15);
  check_close("leaky'(-1.5)", __enzyme_fwddiff((void *)leaky, enzyme_dup, n, 1.0), 0.1, 1e-15);
  check_close("leaky'(2.5)", __enzyme_fwddiff((void *)leaky, enzyme_dup, p, 1.0), 1.0, 1e-15);
  check_close("piece'(0.75)", __enzyme_fwddiff((void *)piece, enzyme_dup, s, 1.0), 1.5, 1e-15);
  check_close("piece'(2.5)", __enzyme_fwddiff((void *)piece, enzyme_dup, p, 1.0), 2.0, 1e-15);
  check_close("larger: x wins", __enzyme_fwddiff((void *)larger, enzyme_dup, p, 3.0, enzyme_dup, n, 5.0),
              3.0, 1e-15);
  check_close("larger: y wins", __enzyme_fwddiff((void *)larger, enzyme_dup, n, 3.0, enzyme_dup, p, 5.0),
              5.0, 1e-15);
  check_close("|x|' at -1.5", __enzyme_fwddiff((void *)absval, enzyme_dup, n, 1.0), -1.0, 1e-15);
  check_close("|x|' at 2.5", __enzyme_fwddiff((void *)absval, enzyme_dup, p, 1.0), 1.0, 1e-15);
  check_close("pick product", __enzyme_fwddiff((void *)pick, enzyme_dup, p, 1.0, enzyme_dup, n, 0.0, 1),
              n, 1e-15);
  check_close("pick sum", __enzyme_fwddiff((void *)pick, enzyme_dup, p, 1.0, enzyme_dup, n, 0.0, 0),
              1.0, 1e-15);
  check_close("clamp inside", __enzyme_fwddiff((void *)clamp, enzyme_dup, s, 1.0, enzyme_dup, 0.0, 10.0,
                                                enzyme_dup, 1.0, 100.0),
              1.0, 1e-15);
  check_close("clamp below", __enzyme_fwddiff((void *)clamp, enzyme_dup, n, 1.0, enzyme_dup, 0.0, 10.0,
                                               enzyme_dup, 1.0, 100.0),
              10.0, 1e-15);
  check_close("clamp above", __enzyme_fwddiff((void *)clamp, enzyme_dup, p, 1.0, enzyme_dup, 0.0, 10.0,
                                               enzyme_dup, 1.0, 100.0),
              100.0, 1e-15);
  return check_exit();
}
