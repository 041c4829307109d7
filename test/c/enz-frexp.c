// RUN: %check-c %s %t
// Functions that split a floating-point number: frexp (mantissa), ldexp,
// scalbn, modf (fractional part), fmod and remainder with respect to both
// arguments, copysign and logb-free exponent tricks, at positive, negative,
// power-of-two and non-power-of-two points, in reverse and forward mode.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_out, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
typedef struct {
  double da, db;
} G2;
G2 __enzyme_autodiff2(void *, ...);

double mant(double x)
{
  int e;
  return frexp(x, &e);
}

double mant_times_exp(double x)
{
  int e;
  double m = frexp(x, &e);
  return m * m * e;
}

double scaled(double x, int n) { return ldexp(x * x, n) + scalbn(x, -n); }

double fracpart(double x)
{
  double ip;
  double f = modf(x * 3.0, &ip);
  return f * f + ip;
}

double fm(double a, double b) { return fmod(a, b); }
double rem(double a, double b) { return remainder(a, b); }
double cs(double a, double b) { return copysign(a * a, b); }

int main(void)
{
  static const double xs[] = {0.9, 1.0, 1.2, 2.0, 2.3, 32.0, 33.0, 0.25, 0.26, -0.9, -1.0, -2.3, -33.0};
  char what[64];
  for (unsigned i = 0; i < sizeof xs / sizeof *xs; i++) {
    double x = xs[i];
    int e;
    double m = frexp(x, &e);
    snprintf(what, sizeof what, "frexp at %g, reverse", x);
    check_close(what, __enzyme_autodiff((void *)mant, x), m / x, 1e-14);
    snprintf(what, sizeof what, "frexp at %g, forward", x);
    check_close(what, __enzyme_fwddiff((void *)mant, x, 1.0), m / x, 1e-14);
    snprintf(what, sizeof what, "frexp squared times exponent at %g", x);
    check_close(what, __enzyme_autodiff((void *)mant_times_exp, x), 2 * m * e / ldexp(1.0, e), 1e-14);
    snprintf(what, sizeof what, "ldexp and scalbn at %g, reverse", x);
    check_close(what, __enzyme_autodiff((void *)scaled, x, 3), 16 * x + 0.125, 1e-14);
    snprintf(what, sizeof what, "ldexp and scalbn at %g, forward", x);
    check_close(what, __enzyme_fwddiff((void *)scaled, x, 1.0, 3), 16 * x + 0.125, 1e-14);
    double ip, f = modf(3.0 * x, &ip);
    snprintf(what, sizeof what, "modf at %g, reverse", x);
    check_close(what, __enzyme_autodiff((void *)fracpart, x), 6.0 * f, 1e-13);
    snprintf(what, sizeof what, "modf at %g, forward", x);
    check_close(what, __enzyme_fwddiff((void *)fracpart, x, 1.0), 6.0 * f, 1e-13);
  }
  double a = 7.3, b = 2.1;
  G2 g = __enzyme_autodiff2((void *)fm, a, b);
  check_close("fmod da", g.da, 1.0, 1e-14);
  check_close("fmod db", g.db, -trunc(a / b), 1e-14);
  check_close("fmod forward db", __enzyme_fwddiff((void *)fm, a, 0.0, b, 1.0), -trunc(a / b), 1e-14);
  g = __enzyme_autodiff2((void *)fm, -a, b);
  check_close("fmod negative db", g.db, -trunc(-a / b), 1e-14);
  g = __enzyme_autodiff2((void *)rem, a, b);
  check_close("remainder da", g.da, 1.0, 1e-14);
  check_close("remainder db", g.db, -nearbyint(a / b), 1e-14);
  g = __enzyme_autodiff2((void *)cs, a, -b);
  check_close("copysign da", g.da, -2 * a, 1e-14);
  check_close("copysign db", g.db, 0.0, 0.0);
  check_close("copysign forward", __enzyme_fwddiff((void *)cs, a, 1.0, -b, 1.0), -2 * a, 1e-14);
  return check_exit();
}
