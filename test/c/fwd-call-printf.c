// RUN: %check-c %s %t
// printf-family calls inside a differentiated function receive active
// doubles but produce no derivative: snprintf into a local buffer (its
// integer result is used) and printf of an intermediate value.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

/* x^3 + (number of characters printed for x) */
static double formatted(double x)
{
  char buf[64];
  int len = snprintf(buf, sizeof buf, "x=%.3f", x);
  return x * x * x + len;
}

static double logged(double x)
{
  double y = sin(x) * x;
  printf("fwd-call-printf: intermediate %.6f\n", y);
  return y * 2.0;
}

int main(void)
{
  volatile double vx = 0.8;
  double x = vx;
  check_close("d with snprintf", __enzyme_fwddiff((void *)formatted, enzyme_dup, x, 1.0), 3 * x * x, 1e-14);
  check_close("d with printf", __enzyme_fwddiff((void *)logged, enzyme_dup, x, 1.0), 2 * (cos(x) * x + sin(x)),
              1e-14);
  return check_exit();
}
