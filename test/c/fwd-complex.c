// RUN: %check-c %s %t
// Forward mode through C99 complex arithmetic on double complex built from
// active real arguments: multiplication and division (which clang may lower
// to __muldc3 / __divdc3), cexp, cabs. For the holomorphic
// w(z) = z^2 e^z / (z + 2), seeding x gives w'(z), seeding y gives i w'(z).
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

static double holo(double x, double y)
{
  double complex z = (x + y * I);
  double complex w = z * z * cexp(z) / (z + 2.0);
  return creal(w) + 2.0 * cimag(w);
}

static double mod(double x, double y) { return cabs((x + y * I)); }

/* Multiplication only. */
static double square_re(double x, double y)
{
  double complex z = (x + y * I);
  double complex w = z * z;
  return creal(w) + cimag(w);
}

int main(void)
{
  volatile double vx = 0.4, vy = -0.7;
  double x = vx, y = vy;
  double complex z = (x + y * I);
  /* w' = e^z (z^2 + 2z) / (z + 2) + z^2 e^z (1 / (z + 2) - 1 / (z + 2)^2) */
  double complex w = z * z * cexp(z) / (z + 2.0);
  double complex wp = w * (2.0 / z + 1.0 - 1.0 / (z + 2.0));
  check_close("complex: d/dx", __enzyme_fwddiff((void *)holo, enzyme_dup, x, 1.0, enzyme_dup, y, 0.0),
              creal(wp) + 2.0 * cimag(wp), 1e-12);
  double complex iwp = I * wp;
  check_close("complex: d/dy", __enzyme_fwddiff((void *)holo, enzyme_dup, x, 0.0, enzyme_dup, y, 1.0),
              creal(iwp) + 2.0 * cimag(iwp), 1e-12);
  check_close("cabs d/dx", __enzyme_fwddiff((void *)mod, enzyme_dup, x, 1.0, enzyme_dup, y, 0.0), x / cabs(z),
              1e-12);
  /* (x + iy)^2 = x^2 - y^2 + 2ixy: d/dx (re + im) = 2x + 2y */
  check_close("complex square d/dx", __enzyme_fwddiff((void *)square_re, enzyme_dup, x, 1.0, enzyme_dup, y, 0.0),
              2 * x + 2 * y, 1e-14);
  return check_exit();
}
