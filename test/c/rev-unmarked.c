// RUN: %check-c %s %t
// Arguments without markers: a floating-point scalar is active (out), a
// pointer is dup (its shadow follows), an integer is constant. Unmarked and
// marked arguments mix in one call.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
typedef struct { double a, b; } Grad2;
Grad2 __enzyme_autodiff_2(void *, ...);

/* x^2 * sum_{i<n} p[i] + y * p[0] */
static double f(double x, int n, const double *p, double y)
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += p[i];
  return x * x * s + y * p[0];
}

static double g(long k, double x, unsigned char c) { return x * x * (double)k + c * x; }

int main(void)
{
  volatile double vx = 1.3, vy = -0.5;
  double x = vx, y = vy;
  double p[3] = {0.5, 2.0, -1.0}, dp[3] = {0, 0, 0};
  double s = p[0] + p[1] + p[2];

  Grad2 r = __enzyme_autodiff_2((void *)f, x, 3, p, dp, y);
  check_close("all unmarked: d/dx", r.a, 2 * x * s, 1e-13);
  check_close("all unmarked: d/dy", r.b, p[0], 1e-13);
  check_close("all unmarked: dp[0]", dp[0], x * x + y, 1e-13);
  check_close("all unmarked: dp[1]", dp[1], x * x, 1e-13);
  check_close("all unmarked: dp[2]", dp[2], x * x, 1e-13);

  double dq[3] = {0, 0, 0};
  double gx = __enzyme_autodiff((void *)f, x, enzyme_const, 3, enzyme_dup, p, dq, enzyme_const, y);
  check_close("mixed: d/dx", gx, 2 * x * s, 1e-13);
  check_close("mixed: dp[0]", dq[0], x * x + y, 1e-13);
  check_close("mixed: dp[2]", dq[2], x * x, 1e-13);

  check_close("long and char constant", __enzyme_autodiff((void *)g, 4L, x, (unsigned char)200),
              8 * x + 200.0, 1e-13);
  return check_exit();
}
