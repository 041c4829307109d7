// RUN: %check-c %s %t
// Found by tools/fuzz-numeric.py (seed 21, programs 49 and 187, --size 2):
// a switch whose case values share a destination (`case 0: case 1:`) gives
// its block two CFG edges to the same successor, and a phi there one entry
// per edge. Reverse mode made invalid IR of it ("PHINode should have one
// entry for each predecessor"); forward mode is checked too.
#include <math.h>
#include <stdio.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_out, enzyme_dup, enzyme_const;

/* x^2 for k in {0, 1}, (2x)^2 otherwise */
double shared(double x, int k)
{
  switch (k) {
  case 0:
  case 1:
    break;
  default:
    x *= 2.0;
  }
  return x * x;
}

/* in a loop, over a dup array: x0 * 2^(n-2) * (1 + sin x1) for n >= 2 */
double looped(double *x, int n)
{
  double s = x[0];
  for (int j = 0; j < n; j++) {
    switch (j % 4) {
    case 0:
    case 1:
      break;
    case 2:
    case 3:
      s *= 2.0;
      break;
    }
  }
  return s * (1.0 + sin(x[1]));
}

int main(void)
{
  double x = 0.7;
  check_close("k=1 rev", __enzyme_autodiff((void *)shared, enzyme_out, x, enzyme_const, 1), 2 * x, 1e-12);
  check_close("k=5 rev", __enzyme_autodiff((void *)shared, enzyme_out, x, enzyme_const, 5), 8 * x, 1e-12);
  check_close("k=0 fwd", __enzyme_fwddiff((void *)shared, enzyme_dup, x, 1.0, enzyme_const, 0), 2 * x, 1e-12);
  check_close("k=2 fwd", __enzyme_fwddiff((void *)shared, enzyme_dup, x, 1.0, enzyme_const, 2), 8 * x, 1e-12);

  double v[2] = {1.5, 0.3}, dv[2] = {0, 0};
  int n = 4; /* s = 4 x0 */
  __enzyme_autodiff((void *)looped, enzyme_dup, v, dv, enzyme_const, n);
  check_close("looped rev d/dx0", dv[0], 4 * (1 + sin(v[1])), 1e-12);
  check_close("looped rev d/dx1", dv[1], 4 * v[0] * cos(v[1]), 1e-12);
  double t[2] = {0, 1};
  check_close("looped fwd d/dx1", __enzyme_fwddiff((void *)looped, enzyme_dup, v, t, enzyme_const, n),
              4 * v[0] * cos(v[1]), 1e-12);
  return check_exit();
}
