// RUN: %check-c %s %t
// Forward mode as Enzyme's tests call it: the entry point declared with a
// typed function-pointer first parameter and a fixed leading double
// (`double __enzyme_fwddiff(double (*)(double, double), double, ...)`), the
// function passed without a cast, and unmarked value/tangent pairs. Also
// noinline helpers (sin and cos behind calls) whose product is
// differentiated, and a tangent along both arguments at once.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern double __enzyme_fwddiff(double (*)(double, double), double, ...);

double ops(double x1, double x2)
{
  double w3 = x1 * x2;
  double w4 = 1.0 / x1;
  double w5 = x2 - x1 / (x2 * x2);
  return w3 + w4 + w5 * w5;
}

__attribute__((noinline)) double mysin(double x) { return sin(x); }
__attribute__((noinline)) double mycos(double x) { return cos(x); }

double prod(double x, double y) { return mysin(x) * mycos(y); }

int main(void)
{
  char what[64];
  for (int i = 1; i < 5; i++) {
    double x = i, y = x * x;
    double w5 = y - x / (y * y);
    double dx = y - 1 / (x * x) + 2 * w5 * (-1 / (y * y));
    double dy = x + 2 * w5 * (1 + 2 * x / (y * y * y));
    snprintf(what, sizeof what, "d/dx at %d", i);
    check_close(what, __enzyme_fwddiff(ops, x, 1.0, y, 0.0), dx, 1e-13);
    snprintf(what, sizeof what, "d/dy at %d", i);
    check_close(what, __enzyme_fwddiff(ops, x, 0.0, y, 1.0), dy, 1e-13);
    snprintf(what, sizeof what, "both at %d", i);
    check_close(what, __enzyme_fwddiff(ops, x, 2.0, y, -1.0), 2 * dx - dy, 1e-13);
  }
  static const double xs[] = {0.0, 0.5, 1.0, 2.0, 3.0};
  for (int i = 0; i < 5; i++) {
    double x = xs[i];
    snprintf(what, sizeof what, "noinline sin*cos at %g", x);
    check_close(what, __enzyme_fwddiff(prod, x, 1.0, x, 1.0), cos(x) * cos(x) - sin(x) * sin(x), 1e-14);
  }
  return check_exit();
}
