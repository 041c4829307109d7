// RUN: %check-c %s %t
// Three and four active scalars: their gradients come back as a struct of
// three or four doubles. On x86-64 such a struct is returned through a
// hidden pointer (sret), so the function to differentiate is the second
// argument of the call in the IR, not the first.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
typedef struct { double a, b, c; } Grad3;
typedef struct { double a, b, c, d; } Grad4;
Grad3 __enzyme_autodiff_3(void *, ...);
Grad4 __enzyme_autodiff_4(void *, ...);

/* grad = (1 + yz, 2 + xz, 6z + xy) */
static double f3(double x, double y, double z) { return x + 2.0 * y + 3.0 * z * z + x * y * z; }

/* grad = (b c d, a c d, a b d, a b c) + (1, 2, 3, 4) */
static double f4(double a, double b, double c, double d) { return a * b * c * d + a + 2 * b + 3 * c + 4 * d; }

int main(void)
{
  volatile double vx = 0.7, vy = -1.3, vz = 2.1, vw = 0.4;
  double x = vx, y = vy, z = vz, w = vw;

  Grad3 g3 = __enzyme_autodiff_3((void *)f3, enzyme_out, x, enzyme_out, y, enzyme_out, z);
  check_close("f3: d/dx", g3.a, 1 + y * z, 1e-13);
  check_close("f3: d/dy", g3.b, 2 + x * z, 1e-13);
  check_close("f3: d/dz", g3.c, 6 * z + x * y, 1e-13);

  g3 = __enzyme_autodiff_3((void *)f3, x, y, z);
  check_close("f3 unmarked: d/dx", g3.a, 1 + y * z, 1e-13);
  check_close("f3 unmarked: d/dy", g3.b, 2 + x * z, 1e-13);
  check_close("f3 unmarked: d/dz", g3.c, 6 * z + x * y, 1e-13);

  Grad4 g4 = __enzyme_autodiff_4((void *)f4, enzyme_out, x, enzyme_out, y, enzyme_out, z, enzyme_out, w);
  check_close("f4: d/da", g4.a, y * z * w + 1, 1e-13);
  check_close("f4: d/db", g4.b, x * z * w + 2, 1e-13);
  check_close("f4: d/dc", g4.c, x * y * w + 3, 1e-13);
  check_close("f4: d/dd", g4.d, x * y * z + 4, 1e-13);
  return check_exit();
}
