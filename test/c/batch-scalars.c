// RUN: %check-c %s %t
// Batch forward mode on scalar functions: W tangents of each float argument
// after it, the W tangents of the result returned as the caller declares
// them (a struct of two doubles in registers, a struct of three through a
// hidden pointer, an array of floats, a struct of four floats), through
// calls of the module's functions (their derivatives take every lane at
// once), recursion, libm, branches and a loop, a width from a const local,
// and width 1 (one tangent, returned as such). Each lane is checked
// against the analytic derivative.
#include <math.h>
#include "check.h"

extern int enzyme_width, enzyme_dup, enzyme_const;
typedef struct { double d[2]; } T2;
typedef struct { double d[3]; } T3;
typedef struct { float d[4]; } F4;
typedef struct { float d[2]; } F2;
T2 __enzyme_fwddiff(void *, ...);
T3 __enzyme_fwddiff3(void *, ...);
F4 __enzyme_fwddiff4f(void *, ...);
F2 __enzyme_fwddiff2f(void *, ...);
double __enzyme_fwddiff1(void *, ...);

static double inner(double x, double y) { return sin(x) * exp(y); }
double outer(double x, double y) { return inner(x, y) + x * y * y + pow(x, 2.5); }
// d/dx = cos x e^y + y^2 + 2.5 x^1.5; d/dy = sin x e^y + 2xy

double power(double x, int n) { return n == 0 ? 1.0 : x * power(x, n - 1); }

float poly(float x, float a) {
  float s = 0, p = 1;
  for (int k = 0; k < 5; k++) {
    s += a * p;
    p *= x;
  }
  return x > 0 ? s : -s;
}
// for x > 0: ds/dx = a (1 + 2x + 3x^2 + 4x^3), ds/da = 1 + x + x^2 + x^3 + x^4

int main(void) {
  double x = 0.7, y = -0.3;
  double dx = cos(x) * exp(y) + y * y + 2.5 * pow(x, 1.5), dy = sin(x) * exp(y) + 2 * x * y;

  T2 t = __enzyme_fwddiff((void *)outer, enzyme_width, 2, x, 1.0, 0.0, y, 0.0, 1.0);
  check_close("two lanes: d/dx", t.d[0], dx, 1e-13);
  check_close("two lanes: d/dy", t.d[1], dy, 1e-13);

  // Three lanes: the sum of the directions in lane 2; y constant.
  T3 u = __enzyme_fwddiff3((void *)outer, enzyme_width, 3, enzyme_dup, x, 1.0, 0.0, 2.0, enzyme_dup, y, 0.0, 1.0,
                           -1.0);
  check_close("three lanes: d/dx", u.d[0], dx, 1e-13);
  check_close("three lanes: d/dy", u.d[1], dy, 1e-13);
  check_close("three lanes: 2 d/dx - d/dy", u.d[2], 2 * dx - dy, 1e-13);

  const int W = 3;
  T3 r = __enzyme_fwddiff3((void *)power, enzyme_width, W, x, 1.0, 2.0, 0.5, enzyme_const, 6);
  for (int k = 0; k < 3; k++)
    check_close("recursion: lane", r.d[k], (k == 0 ? 1.0 : k == 1 ? 2.0 : 0.5) * 6 * pow(x, 5), 1e-13);

  float fx = 0.5f, fa = 2.0f;
  float dsx = fa * (1 + 2 * fx + 3 * fx * fx + 4 * fx * fx * fx), dsa = 1 + fx + fx * fx + fx * fx * fx + fx * fx * fx * fx;
  F4 v = __enzyme_fwddiff4f((void *)poly, enzyme_width, 4, fx, 1.0, 0.0, 1.0, 0.0, fa, 0.0, 1.0, 1.0, 0.0);
  check_close("four float lanes: d/dx", v.d[0], dsx, 1e-6);
  check_close("four float lanes: d/da", v.d[1], dsa, 1e-6);
  check_close("four float lanes: both", v.d[2], dsx + dsa, 1e-6);
  check_close("four float lanes: none", v.d[3], 0, 1e-6);

  F2 w = __enzyme_fwddiff2f((void *)poly, enzyme_width, 2, -fx, 1.0, 0.0, enzyme_const, fa);
  check_close("negative branch: d/dx", w.d[0], -fa * (1 - 2 * fx + 3 * fx * fx - 4 * fx * fx * fx), 1e-6);
  check_close("negative branch: zero direction", w.d[1], 0, 1e-6);

  check_close("width 1: d/dx", __enzyme_fwddiff1((void *)outer, enzyme_width, 1, x, 1.0, y, 0.0), dx, 1e-13);
  return check_exit();
}
