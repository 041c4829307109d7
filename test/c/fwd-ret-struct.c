// RUN: %check-c %s %t
// Forward mode on a function that itself returns a struct of two doubles:
// __enzyme_fwddiff declared with that struct as return type returns the
// tangent struct.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;

struct pair { double a, b; };
struct pair __enzyme_fwddiff_pair(void *, ...);

/* polar to cartesian */
static struct pair polar(double r, double t)
{
  struct pair p = {r * cos(t), r * sin(t)};
  return p;
}

int main(void)
{
  volatile double vr = 2.0, vt = 0.3;
  double r = vr, t = vt;
  struct pair d = __enzyme_fwddiff_pair((void *)polar, enzyme_dup, r, 0.5, enzyme_dup, t, 1.0);
  check_close("d polar.a", d.a, 0.5 * cos(t) - r * sin(t), 1e-14);
  check_close("d polar.b", d.b, 0.5 * sin(t) + r * cos(t), 1e-14);
  d = __enzyme_fwddiff_pair((void *)polar, enzyme_const, r, enzyme_dup, t, 1.0);
  check_close("d polar.a, r const", d.a, -r * sin(t), 1e-14);
  check_close("d polar.b, r const", d.b, r * cos(t), 1e-14);
  return check_exit();
}
