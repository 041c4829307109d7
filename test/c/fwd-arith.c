// RUN: %check-c %s %t
// Forward mode through the basic floating-point instructions: fadd, fsub,
// fmul, fdiv, fneg, and an expression mixing them. Also checks that the
// tangent is linear in the seed (a zero seed gives zero, a doubled seed a
// doubled tangent).
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

static double add(double x, double y) { return x + y; }
static double sub(double x, double y) { return x - y; }
static double mul(double x, double y) { return x * y; }
static double dvd(double x, double y) { return x / y; }
static double neg(double x) { return -x; }
/* (x^2 - y^2) / y - 3x */
static double mix(double x, double y) { return (x + y) * (x - y) / y - 3.0 * x; }

/* Central difference of f along the direction (dx, dy). */
static double fd2(double (*f)(double, double), double x, double y, double dx,
                  double dy)
{
  double h = 1e-6 * fmax(1.0, fmax(fabs(x), fabs(y)));
  return (f(x + h * dx, y + h * dy) - f(x - h * dx, y - h * dy)) / (2 * h);
}

static void check_d(const char *what, double got, double exact, double fd)
{
  char msg[160];
  snprintf(msg, sizeof msg, "%s (analytic)", what);
  check_close(msg, got, exact, 1e-12);
  snprintf(msg, sizeof msg, "%s (finite difference)", what);
  check_close(msg, got, fd, 1e-6);
}

int main(void)
{
  volatile double vx = 1.75, vy = -0.625;
  double x = vx, y = vy;
  double dx = 0.5, dy = -2.0;

  check_d("d(x+y)", __enzyme_fwddiff((void *)add, enzyme_dup, x, dx, enzyme_dup, y, dy),
          dx + dy, fd2(add, x, y, dx, dy));
  check_d("d(x-y)", __enzyme_fwddiff((void *)sub, enzyme_dup, x, dx, enzyme_dup, y, dy),
          dx - dy, fd2(sub, x, y, dx, dy));
  check_d("d(x*y)", __enzyme_fwddiff((void *)mul, enzyme_dup, x, dx, enzyme_dup, y, dy),
          dx * y + x * dy, fd2(mul, x, y, dx, dy));
  check_d("d(x/y)", __enzyme_fwddiff((void *)dvd, enzyme_dup, x, dx, enzyme_dup, y, dy),
          (dx * y - x * dy) / (y * y), fd2(dvd, x, y, dx, dy));
  check_close("d(-x)", __enzyme_fwddiff((void *)neg, enzyme_dup, x, dx), -dx, 1e-15);

  /* d/dx = 2x/y - 3, d/dy = -x^2/y^2 - 1 */
  double gx = 2 * x / y - 3.0, gy = -x * x / (y * y) - 1.0;
  check_d("d mix / dx", __enzyme_fwddiff((void *)mix, enzyme_dup, x, 1.0, enzyme_dup, y, 0.0),
          gx, fd2(mix, x, y, 1.0, 0.0));
  check_d("d mix / dy", __enzyme_fwddiff((void *)mix, enzyme_dup, x, 0.0, enzyme_dup, y, 1.0),
          gy, fd2(mix, x, y, 0.0, 1.0));
  check_d("d mix along (dx,dy)",
          __enzyme_fwddiff((void *)mix, enzyme_dup, x, dx, enzyme_dup, y, dy),
          gx * dx + gy * dy, fd2(mix, x, y, dx, dy));

  /* Linearity in the seed. */
  double t1 = __enzyme_fwddiff((void *)mix, enzyme_dup, x, dx, enzyme_dup, y, dy);
  double t2 = __enzyme_fwddiff((void *)mix, enzyme_dup, x, 2 * dx, enzyme_dup, y, 2 * dy);
  check_close("doubled seed doubles the tangent", t2, 2 * (gx * dx + gy * dy), 1e-12);
  check_close("doubled seed vs single seed", t2 / 2, t1, 1e-12);
  double t0 = __enzyme_fwddiff((void *)mix, enzyme_dup, x, 0.0, enzyme_dup, y, 0.0);
  check_close("zero seed gives zero tangent", t0, 0.0, 1e-15);

  /* Constant inputs: -O2 may fold the whole derivative. */
  check_close("d(x*y) folded", __enzyme_fwddiff((void *)mul, enzyme_dup, 3.0, 1.0, enzyme_dup, 4.0, 0.0),
              4.0, 1e-15);
  check_close("d(x/y) folded", __enzyme_fwddiff((void *)dvd, enzyme_dup, 3.0, 0.0, enzyme_dup, 4.0, 1.0),
              -3.0 / 16.0, 1e-15);
  return check_exit();
}
