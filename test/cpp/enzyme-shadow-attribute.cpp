// __attribute__((enzyme_shadow(g_shadow))) on a global variable g: g_shadow,
// a global of the same type, is g's shadow. The program sets and reads it:
// reverse mode adds d f / d g into it, forward mode reads g's tangent from
// it, and no request clears it (a shadow Kinase makes itself starts each
// request at zero). Works on static members too. g is only read, and active
// all the same. kinase.h makes the attribute an annotation for clang with
// the plugin alone, as kinase-cc does.
// RUN: %check-c %s %t -std=c++17
#include <kinase.h>

#include "check.h"

double scale_shadow = 0;
__attribute__((enzyme_shadow(scale_shadow))) double scale = 2.0;

struct Params {
  static double offset_shadow[2];
  __attribute__((enzyme_shadow(offset_shadow))) static double offset[2];
};
double Params::offset_shadow[2];
double Params::offset[2] = {1.0, -0.5};

// scale x^2 + offset[0] x + offset[1] x^3
__attribute__((noinline)) static double f(double x) {
  return scale * x * x + Params::offset[0] * x + Params::offset[1] * x * x * x;
}

int main() {
  double x = 3.0;
  double dx = __enzyme_autodiff((void *)f, enzyme_out, x);
  check_close("df/dx", dx, 2 * scale * x + Params::offset[0] + 3 * Params::offset[1] * x * x, 1e-12);
  check_close("df/dscale into scale_shadow", scale_shadow, x * x, 1e-12);
  check_close("df/doffset[0]", Params::offset_shadow[0], x, 1e-12);
  check_close("df/doffset[1]", Params::offset_shadow[1], x * x * x, 1e-12);
  check_close("scale unchanged", scale, 2.0, 0);

  // A second request adds to what the first left: the shadow is the user's.
  __enzyme_autodiff((void *)f, enzyme_out, x);
  check_close("accumulates across requests", scale_shadow, 2 * x * x, 1e-12);

  // Forward mode: the tangent of scale is scale_shadow.
  scale_shadow = 1.0;
  Params::offset_shadow[0] = 0.0;
  Params::offset_shadow[1] = 2.0;
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, 0.0);
  check_close("tangent from the globals' shadows", t, x * x + 2.0 * x * x * x, 1e-12);
  return check_exit();
}
