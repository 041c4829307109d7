// RUN: %check-c %s %t
// Forward mode through a heap buffer grown with realloc inside the
// differentiated function: the shadow buffer must grow with it and keep its
// contents.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

/* b = {x, 2x}, grown to {x, 2x, 2x^2, 2x^3}: returns 2x^3 + 2x */
static double grow(double x)
{
  double *b = malloc(2 * sizeof *b);
  b[0] = x;
  b[1] = 2.0 * x;
  b = realloc(b, 64 * sizeof *b);
  b[2] = b[0] * b[1];
  b[3] = b[2] * x;
  double s = b[3] + b[1];
  free(b);
  return s;
}

int main(void)
{
  volatile double vx = 0.75;
  double x = vx;
  check_close("d through realloc", __enzyme_fwddiff((void *)grow, enzyme_dup, x, 1.0), 6 * x * x + 2.0, 1e-14);
  return check_exit();
}
