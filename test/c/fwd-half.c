// RUN: %check-c %s %t
// Half precision (_Float16) where clang emits it as IR half: forward mode
// through arithmetic, a cast to float and back, and a loop.
#include "check.h"

extern int enzyme_dup;
double __enzyme_fwddiff(void *, ...);
_Float16 __enzyme_fwddiff_h(void *, ...);

static _Float16 poly(_Float16 x) {
  _Float16 s = 0;
  for (int i = 1; i <= 3; i++)
    s = s * x + (_Float16)i;
  return s * x; /* x^3 + 2x^2 + 3x */
}

static float widen(_Float16 x) { return (float)x * (float)x; }

int main(void) {
  _Float16 x = (_Float16)0.5f, one = (_Float16)1.0f;
  double d = (double)__enzyme_fwddiff_h((void *)poly, enzyme_dup, x, one);
  check_close("half polynomial", d, 3 * 0.25 + 4 * 0.5 + 3, 1e-2);
  check_close("half to float", __enzyme_fwddiff((void *)widen, enzyme_dup, x, one), 1.0, 1e-3);
  return check_exit();
}
