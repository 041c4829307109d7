// RUN: %check-c %s %t
// Two active scalars among others: their gradients come back as a struct of
// two doubles (returned in registers), in the order of the parameters,
// skipping the constant ones (enzyme_const or an unmarked integer).
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
typedef struct { double a, b; } Grad2;
Grad2 __enzyme_autodiff_2(void *, ...);

/* Distinct gradients so that a mix-up of the order shows:
   grad = (1 + yz, 2 + xz, 3 * 2z + xy) */
static double f3(double x, double y, double z) { return x + 2.0 * y + 3.0 * z * z + x * y * z; }

/* An integer between the active ones: x^n + y * n */
static double fn(double x, int n, double y)
{
  double p = 1.0;
  for (int i = 0; i < n; i++)
    p *= x;
  return p + y * n;
}

int main(void)
{
  volatile double vx = 0.7, vy = -1.3, vz = 2.1;
  double x = vx, y = vy, z = vz;

  /* Middle one constant: the struct holds (d/dx, d/dz). */
  Grad2 g2 = __enzyme_autodiff_2((void *)f3, enzyme_out, x, enzyme_const, y, enzyme_out, z);
  check_close("f3, y const: d/dx", g2.a, 1 + y * z, 1e-13);
  check_close("f3, y const: d/dz", g2.b, 6 * z + x * y, 1e-13);
  /* First one constant. */
  g2 = __enzyme_autodiff_2((void *)f3, enzyme_const, x, enzyme_out, y, enzyme_out, z);
  check_close("f3, x const: d/dy", g2.a, 2 + x * z, 1e-13);
  check_close("f3, x const: d/dz", g2.b, 6 * z + x * y, 1e-13);

  g2 = __enzyme_autodiff_2((void *)fn, x, 5, y);
  check_close("fn (int in between): d/dx", g2.a, 5 * pow(x, 4), 1e-13);
  check_close("fn (int in between): d/dy", g2.b, 5.0, 1e-13);
  g2 = __enzyme_autodiff_2((void *)fn, enzyme_out, y, enzyme_const, 3, enzyme_out, x);
  check_close("fn (n = 3): d/dx", g2.a, 3 * y * y, 1e-13);
  check_close("fn (n = 3): d/dy", g2.b, 3.0, 1e-13);
  return check_exit();
}
