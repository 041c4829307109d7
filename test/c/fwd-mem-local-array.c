// RUN: %check-c %s %t
// Forward mode through memory local to the differentiated function
// (allocas): a local array filled and read back, a 2-D local array, and a
// local scalar updated through a pointer by a helper.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

/* t[i] = (i+1) x;  sum t[i] t[7-i] = 120 x^2 */
static double local_array(double x)
{
  double t[8];
  for (int i = 0; i < 8; i++)
    t[i] = x * (i + 1);
  double s = 0.0;
  for (int i = 0; i < 8; i++)
    s += t[i] * t[7 - i];
  return s;
}

/* m[i][j] = x^i y^j for i, j < 3; return the trace times m[0][2] */
static double local_2d(double x, double y)
{
  double m[3][3];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      m[i][j] = (i ? x * m[i - 1][j] : (j ? y * m[0][j - 1] : 1.0));
  return (m[0][0] + m[1][1] + m[2][2]) * m[0][2];
}

static void accumulate(double *acc, double v) { *acc += v * v; }

static double via_pointer(double x)
{
  double acc = 1.0;
  accumulate(&acc, x);
  accumulate(&acc, 3.0 * x);
  return acc * x;
}

int main(void)
{
  volatile double vx = 0.7, vy = 1.3;
  double x = vx, y = vy;

  check_close("d local array", __enzyme_fwddiff((void *)local_array, enzyme_dup, x, 1.0), 240.0 * x, 1e-13);

  /* (1 + xy + x^2y^2) y^2 */
  double xy = x * y;
  check_close("d local 2-D / dx", __enzyme_fwddiff((void *)local_2d, enzyme_dup, x, 1.0, enzyme_dup, y, 0.0),
              (y + 2 * x * y * y) * y * y, 1e-13);
  check_close("d local 2-D / dy", __enzyme_fwddiff((void *)local_2d, enzyme_dup, x, 0.0, enzyme_dup, y, 1.0),
              (x + 2 * x * x * y) * y * y + (1 + xy + xy * xy) * 2 * y, 1e-13);

  /* (1 + 10 x^2) x: d = 1 + 30 x^2 */
  check_close("d local scalar via helper", __enzyme_fwddiff((void *)via_pointer, enzyme_dup, x, 1.0),
              1.0 + 30.0 * x * x, 1e-13);
  return check_exit();
}
