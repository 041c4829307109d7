// RUN: %check-c %s %t
// Reverse mode on float (not double) functions: float arguments reach
// __enzyme_autodiff promoted to double through its varargs and must be
// converted back to the float parameters; the float gradient comes back
// through a float-returning declaration, and two of them as a struct of two
// floats. A double function with one float and one double parameter returns
// a struct {float, double}.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
float __enzyme_autodiff_f(void *, ...);
typedef struct { float a, b; } GradF2;
GradF2 __enzyme_autodiff_f2(void *, ...);
typedef struct { float a; double b; } GradFD;
GradFD __enzyme_autodiff_fd(void *, ...);

/* 3x^2 + 1/x */
static float f1(float x) { return 3.0f * x * x + 1.0f / x; }
/* x^2 y - y / x + sin(x) */
static float f2(float x, float y) { return x * x * y - y / x + sinf(x); }
/* A double function of a float and a double */
static double fmixed(float x, double y) { return (double)x * y * y + x; }

int main(void)
{
  volatile float vx = 1.5f, vy = -0.75f;
  float x = vx, y = vy;

  float g = __enzyme_autodiff_f((void *)f1, enzyme_out, x);
  check_close("f1 (float, out marker)", g, 6.0 * x - 1.0 / ((double)x * x), 1e-3);
  g = __enzyme_autodiff_f((void *)f1, x);
  check_close("f1 (float, unmarked)", g, 6.0 * x - 1.0 / ((double)x * x), 1e-3);
  float h = 1e-2f;
  check_close("f1 vs central difference", g, ((double)f1(x + h) - (double)f1(x - h)) / (2.0 * h), 1e-3);

  GradF2 g2 = __enzyme_autodiff_f2((void *)f2, enzyme_out, x, enzyme_out, y);
  check_close("f2: d/dx", g2.a, 2.0 * x * y + y / ((double)x * x) + cos((double)x), 1e-3);
  check_close("f2: d/dy", g2.b, (double)x * x - 1.0 / x, 1e-3);

  g = __enzyme_autodiff_f((void *)f2, enzyme_const, x, enzyme_out, y);
  check_close("f2: d/dy, x const", g, (double)x * x - 1.0 / x, 1e-3);

  double yd = 2.25;
  GradFD gm = __enzyme_autodiff_fd((void *)fmixed, enzyme_out, x, enzyme_out, yd);
  check_close("mixed: d/dx (float)", gm.a, yd * yd + 1.0, 1e-3);
  check_close("mixed: d/dy (double)", gm.b, 2.0 * x * yd, 1e-12);
  return check_exit();
}
