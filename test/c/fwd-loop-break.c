// RUN: %check-c %s %t
// Forward mode through loops with early exits: break on an active test,
// return from inside a loop, and continue.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

/* s = x * (0 + 1 + ... + k), stopping at the first k where s > limit */
static double until_over(double x, double limit)
{
  double s = 0.0;
  for (int i = 0; i < 100; i++) {
    s += x * i;
    if (s > limit)
      break;
  }
  return s;
}

/* Return a[i] x^2 for the first i with a[i] x > 1; a is constant. */
static double first_hit(const double *a, int n, double x)
{
  for (int i = 0; i < n; i++)
    if (a[i] * x > 1.0)
      return a[i] * x * x;
  return -x;
}

/* Skip the odd terms with continue: sum over even i of x^2 / (i + 1) */
static double evens(double x, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    if (i % 2)
      continue;
    s += x * x / (i + 1);
  }
  return s;
}

int main(void)
{
  volatile double vx = 0.3, vl = 5.0;
  /* 0.3 * 15 = 4.5 <= 5, 0.3 * 21 = 6.3 > 5: stops at i = 6 */
  check_close("d until_over wrt x",
              __enzyme_fwddiff((void *)until_over, enzyme_dup, (double)vx, 1.0, enzyme_dup, (double)vl, 0.0),
              21.0, 1e-14);
  check_close("d until_over wrt limit is 0",
              __enzyme_fwddiff((void *)until_over, enzyme_dup, (double)vx, 0.0, enzyme_dup, (double)vl, 1.0),
              0.0, 1e-14);

  static const double a[5] = {0.5, 1.0, 2.0, 4.0, 8.0};
  volatile double vy = 0.7;
  double y = vy;
  /* 0.5*0.7, 1*0.7 <= 1, 2*0.7 = 1.4 > 1: returns 2 y^2 */
  check_close("d first_hit", __enzyme_fwddiff((void *)first_hit, enzyme_const, a, 5, enzyme_dup, y, 1.0),
              4.0 * y, 1e-14);
  check_close("d first_hit, no hit", __enzyme_fwddiff((void *)first_hit, enzyme_const, a, 2, enzyme_dup, y, 1.0),
              -1.0, 1e-14);
  /* even i < 7: 0, 2, 4, 6: 2x (1 + 1/3 + 1/5 + 1/7) */
  check_close("d evens", __enzyme_fwddiff((void *)evens, enzyme_dup, y, 1.0, 7),
              2.0 * y * (1.0 + 1.0 / 3 + 1.0 / 5 + 1.0 / 7), 1e-14);
  return check_exit();
}
