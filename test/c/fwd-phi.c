// RUN: %check-c %s %t
// Forward mode through control flow that merges values (phi nodes): if/else
// on an active comparison, on a constant integer, and an early return.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

static double branchy(double x, double y)
{
  double r;
  if (x > y) {
    double t = x * y;
    r = t * t;
  } else {
    r = x / y;
  }
  return r + x;
}

static double by_mode(double x, int mode)
{
  double r = x;
  if (mode == 1)
    r = sin(x);
  else if (mode == 2)
    r = exp(x);
  return r * x;
}

static double early(double x)
{
  if (x < 0.0)
    return -x * x;
  double y = x * 3.0;
  if (y > 100.0)
    return 0.0;
  return y * x;
}

int main(void)
{
  volatile double va = 2.0, vb = 0.5;
  double a = va, b = vb;

  /* a > b: r = (ab)^2 + a; d/da = 2ab^2 + 1, d/db = 2a^2 b */
  check_close("then branch d/dx", __enzyme_fwddiff((void *)branchy, enzyme_dup, a, 1.0, enzyme_dup, b, 0.0),
              2 * a * b * b + 1.0, 1e-14);
  check_close("then branch d/dy", __enzyme_fwddiff((void *)branchy, enzyme_dup, a, 0.0, enzyme_dup, b, 1.0),
              2 * a * a * b, 1e-14);
  /* b < a: r = b/a + b; d/dx(first arg = b) = 1/a + 1, d/dy = -b/a^2 */
  check_close("else branch d/dx", __enzyme_fwddiff((void *)branchy, enzyme_dup, b, 1.0, enzyme_dup, a, 0.0),
              1.0 / a + 1.0, 1e-14);
  check_close("else branch d/dy", __enzyme_fwddiff((void *)branchy, enzyme_dup, b, 0.0, enzyme_dup, a, 1.0),
              -b / (a * a), 1e-14);

  check_close("mode 0: x*x", __enzyme_fwddiff((void *)by_mode, enzyme_dup, a, 1.0, 0), 2 * a, 1e-14);
  check_close("mode 1: sin(x)*x", __enzyme_fwddiff((void *)by_mode, enzyme_dup, a, 1.0, 1),
              cos(a) * a + sin(a), 1e-12);
  check_close("mode 2: exp(x)*x", __enzyme_fwddiff((void *)by_mode, enzyme_dup, a, 1.0, 2),
              exp(a) * (a + 1), 1e-12);

  check_close("early return, x<0", __enzyme_fwddiff((void *)early, enzyme_dup, -a, 1.0), 2 * a, 1e-14);
  check_close("fall through", __enzyme_fwddiff((void *)early, enzyme_dup, a, 1.0), 6 * a, 1e-14);
  check_close("second early return", __enzyme_fwddiff((void *)early, enzyme_dup, 50.0, 1.0), 0.0, 1e-14);
  return check_exit();
}
