// RUN: %check-c %s %t
// C99 complex arithmetic inside functions of real arguments, in reverse and
// forward mode: complex multiplication and division (which clang lowers to
// calls of __muldc3 / __divdc3 when the operands may be infinite), cexp,
// cabs, creal/cimag, and a complex value stored to and loaded
// from memory in a loop (a polynomial evaluated at a complex point).
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

double cmul(double x)
{
  double complex z = x + I * x * x;
  double complex w = (1.0 - 2.0 * I) * z;
  double complex q = z * w;
  return creal(q) + cimag(q);
}

double cdivf(double x)
{
  double complex z = 2.0 + I * x;
  double complex w = x - 0.5 * I;
  return creal(z / w) * cimag(w / z);
}

double cfun(double x)
{
  double complex z = x + 0.25 * I;
  return cabs(cexp(z) * z) + atan2(cimag(z), creal(z));
}

double cpoly(const double *coef, int n, double x)
{
  double complex buf[8];
  double complex z = x + I * 0.5;
  double complex p = 0;
  for (int i = n - 1; i >= 0; i--) {
    p = p * z + coef[i];
    buf[i] = p;
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += cabs(buf[i]);
  return s;
}

static const double C[5] = {1.0, -0.5, 0.25, 2.0, -1.0};
static double cpoly_x(double x) { return cpoly(C, 5, x); }

int main(void)
{
  static const double xs[] = {0.3, 1.1, -0.7};
  char what[64];
  extern int enzyme_const;
  for (int k = 0; k < 3; k++) {
    double x = xs[k];
    check_both_modes(cmul, x, 1e-7);
    check_both_modes(cdivf, x, 1e-7);
    check_both_modes(cfun, x, 1e-7);
    double fd = central_difference(cpoly_x, x);
    snprintf(what, sizeof what, "complex polynomial at %g, reverse", x);
    check_close(what, __enzyme_autodiff((void *)cpoly, enzyme_const, C, enzyme_const, 5, x), fd, 1e-7);
    snprintf(what, sizeof what, "complex polynomial at %g, forward", x);
    check_close(what, __enzyme_fwddiff((void *)cpoly, enzyme_const, C, enzyme_const, 5, x, 1.0), fd, 1e-7);
  }
  return check_exit();
}
