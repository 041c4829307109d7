// A struct of three doubles passed by value is passed in memory (byval);
// marked enzyme_out, its gradient is returned as a struct of the same type,
// in parameter order with the other enzyme_out gradients. Before, the
// error "is enzyme_out but is not a floating-point value".
// RUN: %check-c %s %t
#include "check.h"

extern int enzyme_out, enzyme_const;
typedef struct {
  double x, y, z;
} V3;
typedef struct {
  double s;
  V3 v;
} Grad;
V3 __enzyme_autodiff(void *, ...);
Grad __enzyme_autodiff_mixed(void *, ...) __asm__("__enzyme_autodiff");

static double norm3(V3 v, int k) { return k * sqrt(v.x * v.x + v.y * v.y + v.z * v.z); }
static double scaled(double s, V3 v) { return s * s * (v.x + 2 * v.y + 3 * v.z); }

int main(void) {
  V3 w = {1, 2, 2};
  V3 g = __enzyme_autodiff((void *)norm3, enzyme_out, w, enzyme_const, 2);
  check_close("norm x", g.x, 2.0 / 3, 1e-12);
  check_close("norm y", g.y, 4.0 / 3, 1e-12);
  check_close("norm z", g.z, 4.0 / 3, 1e-12);
  Grad m = __enzyme_autodiff_mixed((void *)scaled, enzyme_out, 1.5, enzyme_out, w);
  check_close("mixed s", m.s, 2 * 1.5 * (1 + 4 + 6), 1e-12);
  check_close("mixed v.x", m.v.x, 2.25, 1e-12);
  check_close("mixed v.z", m.v.z, 3 * 2.25, 1e-12);
  return check_exit();
}
