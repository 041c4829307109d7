// RUN: %check-c %s %t
// Forward mode through the rounding functions floor, ceil, trunc, round,
// rint, nearbyint and lround: their derivative is zero (away from the
// jumps), so x - floor(x) etc. have derivative 1.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

static double f_floor(double x) { return floor(x); }
static double f_ceil(double x) { return ceil(x); }
static double f_trunc(double x) { return trunc(x); }
static double f_round(double x) { return round(x); }
static double f_rint(double x) { return rint(x); }
static double f_nearbyint(double x) { return nearbyint(x); }
static double f_lround(double x) { return (double)lround(x) * x; }
static double f_frac(double x) { return (x - floor(x)) * x; }
static double f_mix(double x) { return x * x + ceil(x) + trunc(x) + round(x) + rint(x); }

int main(void)
{
  volatile double va = 2.7, vb = -3.3;
  double a = va, b = vb;

  check_close("floor'", __enzyme_fwddiff((void *)f_floor, enzyme_dup, a, 1.0), 0.0, 1e-15);
  check_close("ceil'", __enzyme_fwddiff((void *)f_ceil, enzyme_dup, b, 1.0), 0.0, 1e-15);
  check_close("trunc'", __enzyme_fwddiff((void *)f_trunc, enzyme_dup, b, 1.0), 0.0, 1e-15);
  check_close("round'", __enzyme_fwddiff((void *)f_round, enzyme_dup, a, 1.0), 0.0, 1e-15);
  check_close("rint'", __enzyme_fwddiff((void *)f_rint, enzyme_dup, a, 1.0), 0.0, 1e-15);
  check_close("nearbyint'", __enzyme_fwddiff((void *)f_nearbyint, enzyme_dup, b, 1.0), 0.0, 1e-15);
  /* lround(2.7) = 3: d = 3 */
  check_close("d lround(x) * x", __enzyme_fwddiff((void *)f_lround, enzyme_dup, a, 1.0), 3.0, 1e-15);
  /* (x - floor x) x: d = 2x - floor(x) */
  check_close("d frac(x) * x at 2.7", __enzyme_fwddiff((void *)f_frac, enzyme_dup, a, 1.0), 2 * a - 2.0, 1e-14);
  check_close("d frac(x) * x at -3.3", __enzyme_fwddiff((void *)f_frac, enzyme_dup, b, 1.0), 2 * b + 4.0, 1e-14);
  check_close("d x^2 + roundings", __enzyme_fwddiff((void *)f_mix, enzyme_dup, b, 1.0), 2 * b, 1e-14);
  return check_exit();
}
