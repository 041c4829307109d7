// RUN: %check-c %s %t
// RUN: %check-c %s %t.nme -fno-math-errno
// sincos(x, &s, &c) writes its results through pointers: in both modes,
// into locals, into the caller's memory with shadows (forward: tangents
// stored through the shadows; reverse: the shadows' adjoints go to x and
// are cleared), in a loop, for float and long double. Without errno clang
// emits llvm.sincos, a {sin, cos} pair, instead (the second RUN line).
#define _GNU_SOURCE
#include <kinase.h>
#include <math.h>
#include <stdio.h>
#include "check.h"

float __enzyme_autodiff_float(void *, ...);
float __enzyme_fwddiff_float(void *, ...);

static double sc(double x)
{
  double s, c;
  sincos(x, &s, &c);
  return s * c + s;
}
static void to_memory(double x, double *s, double *c)
{
  sincos(x, s, c);
  *s *= 2;
}
static double rotate_sum(const double *angles, int n)
{
  double sum = 0;
  for (int i = 0; i < n; i++) {
    double s, c;
    sincos(angles[i], &s, &c);
    sum += s * s * c;
  }
  return sum;
}
static float scf(float x)
{
  float s, c;
  sincosf(x, &s, &c);
  return s * c;
}
static double scl(double x)
{
  long double s, c;
  sincosl((long double)x, &s, &c);
  return (double)(s - c);
}

int main(void)
{
  char what[64];
  static const double xs[] = {-2.0, 0.0, 0.8, 3.3};
  for (size_t k = 0; k < sizeof xs / sizeof *xs; k++) {
    double x = xs[k];
    double want = cos(2 * x) + cos(x);
    snprintf(what, sizeof what, "sc at %g, test", x);
    check_close(what, want, central_difference(sc, x), 1e-6);
    snprintf(what, sizeof what, "sc at %g, reverse", x);
    check_close(what, __enzyme_autodiff((void *)sc, enzyme_out, x), want, 1e-14);
    snprintf(what, sizeof what, "sc at %g, forward", x);
    check_close(what, __enzyme_fwddiff((void *)sc, enzyme_dup, x, 1.0), want, 1e-14);
    snprintf(what, sizeof what, "scl at %g, reverse", x);
    check_close(what, __enzyme_autodiff((void *)scl, enzyme_out, x), cos(x) + sin(x), 1e-14);
    snprintf(what, sizeof what, "scl at %g, forward", x);
    check_close(what, __enzyme_fwddiff((void *)scl, enzyme_dup, x, 1.0), cos(x) + sin(x), 1e-14);
    snprintf(what, sizeof what, "scf at %g, reverse", x);
    check_close(what, __enzyme_autodiff_float((void *)scf, enzyme_out, (float)x), cos(2 * (float)x),
                1e-6);
    snprintf(what, sizeof what, "scf at %g, forward", x);
    check_close(what, __enzyme_fwddiff_float((void *)scf, enzyme_dup, (float)x, 1.0f),
                cos(2 * (float)x), 1e-6);
  }

  /* Results in the caller's memory: s = 2 sin x, c = cos x. */
  double x = 0.8, s = 0, c = 0, ds = 1.5, dc = 3.0;
  double dx = __enzyme_autodiff((void *)to_memory, enzyme_out, x, enzyme_dup, &s, &ds, enzyme_dup, &c, &dc);
  check_close("to_memory, reverse: d/dx", dx, 1.5 * 2 * cos(x) - 3.0 * sin(x), 1e-14);
  check_true("to_memory, reverse: the shadows are consumed", ds == 0 && dc == 0);
  check_close("to_memory, reverse: s", s, 2 * sin(x), 1e-15);
  check_close("to_memory, reverse: c", c, cos(x), 1e-15);
  __enzyme_fwddiff((void *)to_memory, enzyme_dup, x, 0.5, enzyme_dup, &s, &ds, enzyme_dup, &c, &dc);
  check_close("to_memory, forward: ds", ds, 0.5 * 2 * cos(x), 1e-14);
  check_close("to_memory, forward: dc", dc, -0.5 * sin(x), 1e-14);

  /* In a loop: d/da_i sin^2 c = 2 s c^2 - s^3 */
  double angles[4] = {0.1, -1.2, 2.5, 0.7}, grad[4] = {0}, tangent[4] = {1, 2, 3, 4};
  __enzyme_autodiff((void *)rotate_sum, enzyme_dup, angles, grad, enzyme_const, 4);
  double directional = 0;
  for (int i = 0; i < 4; i++) {
    double si = sin(angles[i]), ci = cos(angles[i]), want = 2 * si * ci * ci - si * si * si;
    snprintf(what, sizeof what, "rotate_sum, reverse: d/da[%d]", i);
    check_close(what, grad[i], want, 1e-14);
    directional += want * tangent[i];
  }
  check_close("rotate_sum, forward",
              __enzyme_fwddiff((void *)rotate_sum, enzyme_dup, angles, tangent, enzyme_const, 4),
              directional, 1e-14);
  return check_exit();
}
