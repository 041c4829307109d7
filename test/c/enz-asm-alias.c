// RUN: %check-c %s %t
// Entry points declared under other C names bound to Enzyme's symbol with an
// asm label, so that one translation unit can use several prototypes of the
// same entry point: `G2 grad2(void *, ...) __asm__("__enzyme_autodiff");`
// next to the plain declaration, and the same for __enzyme_fwddiff with a
// typed first parameter.
#include <math.h>
#include <stdio.h>
#include "check.h"

typedef struct {
  double dx, dy;
} G2;

double __enzyme_autodiff(void *, ...);
extern G2 grad2(void *, ...) __asm__("__enzyme_autodiff");
extern double tangent(double (*)(double, double), ...) __asm__("__enzyme_fwddiff");

double f(double x, double y) { return x * x * y + cos(y); }
double g(double x) { return exp(2 * x); }

int main(void)
{
  double x = 0.5, y = 1.5;
  check_close("plain prototype", __enzyme_autodiff((void *)g, x), 2 * exp(2 * x), 1e-14);
  G2 gr = grad2((void *)f, x, y);
  check_close("asm label, struct of gradients: dx", gr.dx, 2 * x * y, 1e-14);
  check_close("asm label, struct of gradients: dy", gr.dy, x * x - sin(y), 1e-14);
  check_close("asm label, forward", tangent(f, x, 1.0, y, 0.0), 2 * x * y, 1e-14);
  return check_exit();
}
