// RUN: %check-c %s %t
// Functions on float (not double): float arguments go through the varargs
// of __enzyme_fwddiff promoted to double and must be converted back to the
// float parameters; the float tangent comes back through a double-returning
// or a float-returning declaration.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);
float __enzyme_fwddiff_float(void *, ...);

/* x^2 y + sin(x) */
static float ff(float x, float y) { return x * x * y + sinf(x); }
/* A float function with a double argument, and a double function with a
   float argument. */
static float fd_mix(float x, double y) { return (float)(x * y) + x; }
static double df_mix(double x, float y) { return x / y; }

static double fdiff(float (*f)(float, float), float x, float y, float dx, float dy)
{
  float h = 1e-3f;
  return ((double)f(x + h * dx, y + h * dy) - (double)f(x - h * dx, y - h * dy)) / (2.0 * h);
}

int main(void)
{
  volatile float vx = 0.8f, vy = 1.5f;
  float x = vx, y = vy;
  double gx = 2.0 * x * y + cos((double)x), gy = (double)x * x;

  /* Explicit markers, float values passed through varargs. */
  check_close("float: d/dx (double return)",
              __enzyme_fwddiff((void *)ff, enzyme_dup, x, 1.0f, enzyme_const, y), gx, 1e-3);
  check_close("float: d/dy (double return)",
              __enzyme_fwddiff((void *)ff, enzyme_const, x, enzyme_dup, y, 1.0f), gy, 1e-3);
  check_close("float: d/dx (float return)",
              __enzyme_fwddiff_float((void *)ff, enzyme_dup, x, 1.0f, enzyme_const, y), gx, 1e-3);
  check_close("float: d along (1,2) (float return)",
              __enzyme_fwddiff_float((void *)ff, enzyme_dup, x, 1.0f, enzyme_dup, y, 2.0f),
              gx + 2.0 * gy, 1e-3);
  check_close("float: d along (1,2) vs finite difference",
              __enzyme_fwddiff_float((void *)ff, enzyme_dup, x, 1.0f, enzyme_dup, y, 2.0f),
              fdiff(ff, x, y, 1.0f, 2.0f), 1e-2);
  /* Unmarked float arguments are dup: value then tangent. */
  check_close("float: unmarked args", __enzyme_fwddiff((void *)ff, x, 0.0f, y, 1.0f), gy, 1e-3);

  /* Mixed precision parameters. */
  check_close("float fn, double arg: d/dx",
              __enzyme_fwddiff((void *)fd_mix, enzyme_dup, x, 1.0f, enzyme_const, 2.0), 3.0, 1e-3);
  check_close("float fn, double arg: d/dy",
              __enzyme_fwddiff((void *)fd_mix, enzyme_const, x, enzyme_dup, 2.0, 1.0), (double)x, 1e-3);
  check_close("double fn, float arg: d/dy",
              __enzyme_fwddiff((void *)df_mix, enzyme_const, 3.0, enzyme_dup, y, 1.0f),
              -3.0 / ((double)y * y), 1e-6);
  return check_exit();
}
