// RUN: %check-c %s %t
// Forward mode through the floating-point remainder: the `frem` instruction
// (from __builtin_elementwise_fmod) and the libm call fmod. Away from its
// jumps, fmod(x, y) = x - trunc(x/y) * y, so its tangent is
// dx - trunc(x/y) * dy.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

static double rem_insn(double x, double y) { return __builtin_elementwise_fmod(x, y); }
static double rem_call(double x, double y) { return fmod(x, y); }
/* A remainder inside a larger expression: a periodic sawtooth squared. */
static double saw2(double x) { double s = fmod(3.0 * x, 2.0); return s * s; }

static double fd2(double (*f)(double, double), double x, double y, double dx,
                  double dy)
{
  double h = 1e-6 * fmax(1.0, fmax(fabs(x), fabs(y)));
  return (f(x + h * dx, y + h * dy) - f(x - h * dx, y - h * dy)) / (2 * h);
}

int main(void)
{
  volatile double vx = 7.3, vy = 2.1, vneg = -7.3;
  double x = vx, y = vy, xn = vneg;
  /* trunc(7.3 / 2.1) = 3, trunc(-7.3 / 2.1) = -3 */

  check_close("frem d/dx", __enzyme_fwddiff((void *)rem_insn, enzyme_dup, x, 1.0, enzyme_const, y),
              1.0, 1e-12);
  check_close("frem d/dy", __enzyme_fwddiff((void *)rem_insn, enzyme_const, x, enzyme_dup, y, 1.0),
              -3.0, 1e-12);
  check_close("frem d/dy (fd)", __enzyme_fwddiff((void *)rem_insn, enzyme_const, x, enzyme_dup, y, 1.0),
              fd2(rem_insn, x, y, 0.0, 1.0), 1e-6);
  check_close("frem d/dy, negative x", __enzyme_fwddiff((void *)rem_insn, enzyme_const, xn, enzyme_dup, y, 1.0),
              3.0, 1e-12);

  check_close("fmod along (1,0.5)", __enzyme_fwddiff((void *)rem_call, enzyme_dup, x, 1.0, enzyme_dup, y, 0.5),
              1.0 - 3.0 * 0.5, 1e-12);
  check_close("fmod along (1,0.5) (fd)",
              __enzyme_fwddiff((void *)rem_call, enzyme_dup, x, 1.0, enzyme_dup, y, 0.5),
              fd2(rem_call, x, y, 1.0, 0.5), 1e-6);
  check_close("fmod d/dy, negative x", __enzyme_fwddiff((void *)rem_call, enzyme_const, xn, enzyme_dup, y, 1.0),
              3.0, 1e-12);

  /* x = 1.9: s = fmod(5.7, 2) = 1.7, d = 2 s * 3 */
  volatile double vs = 1.9;
  double s = fmod(3.0 * vs, 2.0);
  check_close("d fmod(3x,2)^2", __enzyme_fwddiff((void *)saw2, enzyme_dup, (double)vs, 1.0),
              6.0 * s, 1e-12);
  return check_exit();
}
