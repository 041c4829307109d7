// RUN: %check-c %s %t
// XFAIL: *
// Found by tools/fuzz-numeric.py (seed 1, program 875, before the generator
// stopped marking x enzyme_const in forward mode next to other memory with a
// shadow): a pointer that may point to memory with a shadow or to memory
// without one (Enzyme's "runtime activity"). The program only selects between
// two values, but clang turns `c ? y[i] : K[i]` (and `c ? y[i] : x[j]` with x
// enzyme_const) into one load through a select of the two addresses, and
// Kinase refuses it: "a pointer here may point either to memory with a
// shadow ... or to memory without one". The constant-table case (K) now
// works (the table gets a shadow that reads as zero: test/c/rev-global-shadow.c);
// not supported yet: the same with an enzyme_const argument, whose memory
// has no shadow to give.
#include <math.h>
#include <stdio.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

/* x const (no derivative wanted), y dup */
double mixed(const double *x, double *y, int n)
{
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (y[i] > 0.25 ? y[(i + 1) % n] : x[1]) * y[i];
  return s;
}

int main(void)
{
  double y[3] = {1.0, -2.0, 3.0};
  double x[2] = {0.5, 4.0};
  /* y0*y1 + x1*y1 + y2*y0: d/dy1 = y0 + x1 */
  double t[3] = {0, 1, 0};
  check_close("mixed fwd y1",
              __enzyme_fwddiff((void *)mixed, enzyme_const, x, enzyme_dup, y, t, enzyme_const, 3), 5.0,
              1e-12);
  return check_exit();
}
