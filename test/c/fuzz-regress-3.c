// RUN: %check-c %s %t
// XFAIL: *
// Found by tools/fuzz-numeric.py (seed 1, program 875, before the generator
// stopped marking x enzyme_const in forward mode next to other memory with a
// shadow): a pointer that may point to memory with a shadow or to memory
// without one (Enzyme's "runtime activity"). The program only selects between
// two values, but clang turns `c ? y[i] : K[i]` (and `c ? y[i] : x[j]` with x
// enzyme_const) into one load through a select of the two addresses, and
// Kinase refuses it: "a pointer here may point either to memory with a
// shadow ... or to memory without one". Not supported yet: the shadow of
// memory without one would read as zero and take no gradient.
#include <math.h>
#include <stdio.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

static const double K[3] = {0.5, 1.5, -2.0};

/* sum_i (y_i > 0 ? y_{i+1} : K_i) * y_i */
double table(double *y, int n)
{
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (y[i] > 0.0 ? y[(i + 1) % n] : K[i]) * y[i];
  return s;
}

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
  double y[3] = {1.0, -2.0, 3.0}, dy[3] = {0};
  /* y0*y1 + K1*y1 + y2*y0: d/dy = (y1 + y2, y0 + K1, y0) */
  __enzyme_autodiff((void *)table, enzyme_dup, y, dy, enzyme_const, 3);
  check_close("table rev y0", dy[0], 1.0, 1e-12);
  check_close("table rev y1", dy[1], 2.5, 1e-12);
  check_close("table rev y2", dy[2], 1.0, 1e-12);
  double ty[3] = {0, 1, 0};
  check_close("table fwd y1", __enzyme_fwddiff((void *)table, enzyme_dup, y, ty, enzyme_const, 3), 2.5,
              1e-12);

  double x[2] = {0.5, 4.0};
  /* y0*y1 + x1*y1 + y2*y0: d/dy1 = y0 + x1 */
  double t[3] = {0, 1, 0};
  check_close("mixed fwd y1",
              __enzyme_fwddiff((void *)mixed, enzyme_const, x, enzyme_dup, y, t, enzyme_const, 3), 5.0,
              1e-12);
  return check_exit();
}
