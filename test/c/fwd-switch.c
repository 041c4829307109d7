// RUN: %check-c %s %t
// Forward mode through switch statements: on a constant argument, and on
// the loop counter inside a loop.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

static double by_case(double x, int mode)
{
  switch (mode) {
  case 0:
    return x * x;
  case 1:
    return sin(x);
  case 2: {
    double t = exp(x);
    return t * t;
  }
  case 3:
  case 4:
    x = x * 3.0; /* falls through */
  case 5:
    return x + 1.0;
  default:
    return 7.0;
  }
}

static double cycle(double x, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    switch (i % 3) {
    case 0: s += x; break;
    case 1: s *= x; break;
    default: s -= x * x; break;
    }
  }
  return s;
}

int main(void)
{
  volatile double vx = 0.4;
  double x = vx;
  check_close("case 0", __enzyme_fwddiff((void *)by_case, enzyme_dup, x, 1.0, 0), 2 * x, 1e-14);
  check_close("case 1", __enzyme_fwddiff((void *)by_case, enzyme_dup, x, 1.0, 1), cos(x), 1e-14);
  check_close("case 2", __enzyme_fwddiff((void *)by_case, enzyme_dup, x, 1.0, 2), 2 * exp(2 * x), 1e-12);
  check_close("case 3 (falls through)", __enzyme_fwddiff((void *)by_case, enzyme_dup, x, 1.0, 3), 3.0, 1e-14);
  check_close("case 4 (falls through)", __enzyme_fwddiff((void *)by_case, enzyme_dup, x, 1.0, 4), 3.0, 1e-14);
  check_close("case 5", __enzyme_fwddiff((void *)by_case, enzyme_dup, x, 1.0, 5), 1.0, 1e-14);
  check_close("default", __enzyme_fwddiff((void *)by_case, enzyme_dup, x, 1.0, 9), 0.0, 1e-14);

  /* n = 3: s = (x * x) - x^2 = 0  -> use n = 5: ((x*x - x^2) + x) * x = x^2 */
  check_close("switch in loop, n = 5", __enzyme_fwddiff((void *)cycle, enzyme_dup, x, 1.0, 5), 2 * x, 1e-14);
  /* n = 4: x^2 - x^2 + x... s after 3 = 0, after 4: x -> tangent 1 */
  check_close("switch in loop, n = 4", __enzyme_fwddiff((void *)cycle, enzyme_dup, x, 1.0, 4), 1.0, 1e-14);
  /* n = 2: x*x */
  check_close("switch in loop, n = 2", __enzyme_fwddiff((void *)cycle, enzyme_dup, x, 1.0, 2), 2 * x, 1e-14);
  return check_exit();
}
