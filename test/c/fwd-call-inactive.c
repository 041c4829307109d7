// RUN: %check-c %s %t
// Calls that carry no derivative inside a differentiated function: library
// functions on integers and strings (abs, strlen) and a user helper returning
// only an integer. (printf-like calls: fwd-call-printf.c.)
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) static int count_positive(const double *x, int n)
{
  int c = 0;
  for (int i = 0; i < n; i++)
    c += x[i] > 0.0;
  return c;
}

/* x^2 * (|k| + strlen(name)) + x * positives */
static double busy(double x, int k, const char *name, const double *v)
{
  double scale = abs(k) + (double)strlen(name);
  return x * x * scale + x * count_positive(v, 4);
}

int main(void)
{
  double v[4] = {1.0, -2.0, 3.0, 0.5};
  volatile double vx = 0.8;
  double x = vx;
  /* scale = 3 + 5 = 8, positives = 3: d = 16 x + 3 */
  check_close("d busy", __enzyme_fwddiff((void *)busy, enzyme_dup, x, 1.0, -3, enzyme_const, "hello", enzyme_const, v),
              16 * x + 3.0, 1e-14);
  return check_exit();
}
