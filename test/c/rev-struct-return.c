// RUN: %check-c %s %t
// Structs returned by value inside differentiated code: a small one in
// registers ({double, double}), a large one through a hidden sret pointer
// (four doubles), and one mixing an int; and __enzyme_fwddiff of functions
// returning each, whose tangent comes back in the same struct type.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);

struct polar { double r, theta; };
struct quad { double a, b, c, d; };
struct tagged { int n; double v; };

static struct polar to_polar(double x, double y) { return (struct polar){hypot(x, y), atan2(y, x)}; }

static struct quad expand(double x)
{
  struct quad q = {x, x * x, sin(x), exp(-x)};
  return q;
}

static struct tagged count_and_scale(double x, int n)
{
  struct tagged t = {n, 0};
  for (int i = 0; i < n; i++)
    t.v += x * (i + 1);
  return t;
}

/* r^2 theta + a b c d + tagged.v */
static double combine(double x, double y)
{
  struct polar p = to_polar(x, y);
  struct quad q = expand(x * y);
  struct tagged t = count_and_scale(y, 3);
  return p.r * p.r * p.theta + q.a * q.b * q.c * q.d + t.v * t.n;
}

struct polar __enzyme_fwddiff_polar(void *, ...);
struct quad __enzyme_fwddiff_quad(void *, ...);
struct tagged __enzyme_fwddiff_tagged(void *, ...);
typedef struct { double dx, dy; } Grad2;
Grad2 __enzyme_autodiff_2(void *, ...);

int main(void)
{
  double x = 0.8, y = 0.6;
  Grad2 g = __enzyme_autodiff_2((void *)combine, enzyme_out, x, enzyme_out, y);
  /* r^2 theta = (x^2 + y^2) atan2(y, x); d/dx = 2x theta - y, d/dy = 2y theta + x */
  double theta = atan2(y, x), z = x * y;
  /* a b c d = z^3 sin z e^-z: d/dz = (3 z^2 sin z + z^3 cos z - z^3 sin z) e^-z */
  double dz = (3 * z * z * sin(z) + z * z * z * cos(z) - z * z * z * sin(z)) * exp(-z);
  check_close("combine: d/dx", g.dx, 2 * x * theta - y + dz * y, 1e-13);
  check_close("combine: d/dy", g.dy, 2 * y * theta + x + dz * x + 18, 1e-13);

  struct polar tp = __enzyme_fwddiff_polar((void *)to_polar, x, 1.0, y, 0.0);
  check_close("to_polar forward: dr/dx", tp.r, x / hypot(x, y), 1e-14);
  check_close("to_polar forward: dtheta/dx", tp.theta, -y / (x * x + y * y), 1e-14);
  struct quad tq = __enzyme_fwddiff_quad((void *)expand, x, 1.0);
  check_close("expand forward (sret): a", tq.a, 1, 1e-14);
  check_close("expand forward (sret): b", tq.b, 2 * x, 1e-14);
  check_close("expand forward (sret): c", tq.c, cos(x), 1e-14);
  check_close("expand forward (sret): d", tq.d, -exp(-x), 1e-14);
  struct tagged tt = __enzyme_fwddiff_tagged((void *)count_and_scale, x, 1.0, enzyme_const, 4);
  check_close("count_and_scale forward: v", tt.v, 10, 1e-14);
  return check_exit();
}
