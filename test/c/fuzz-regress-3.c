// RUN: %check-c %s %t
// Found by tools/fuzz-numeric.py (seed 1, program 875): a value read from
// dup memory or from enzyme_const memory, `c ? y[j] : x[1]`. The source has a
// load on each path; instcombine (which Kinase runs on every copy, at -O0
// too) merges them into one load through a phi (or a select) of the two
// addresses, a pointer with a shadow on one side only, and Kinase refused
// it ("a pointer here may point either to memory with a shadow ... or to
// memory without one"). Such a load goes back to one load per path
// (lib/core/splitloads.c), in both modes.
#include <math.h>
#include <stdio.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

/* x const (no derivative wanted), y dup */
double mixed(const double *x, double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (y[i] > 0.25 ? y[(i + 1) % n] : x[1]) * y[i];
  return s;
}

/* The choice as a conditional expression of addresses, then an index. */
double through_pointer(const double *x, double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    const double *row = y[i] > 0.25 ? y : x;
    s += row[i] * y[i] * y[i];
  }
  return s;
}

/* A boundary value from Const memory at the ends. */
double boundary(const double *bc, double *u, int n) {
  double e = 0;
  for (int i = 0; i < n; i++) {
    double left = i > 0 ? u[i - 1] : bc[0];
    double right = i < n - 1 ? u[i + 1] : bc[1];
    e += (right - left) * u[i];
  }
  return e;
}

int main(void) {
  double x[3] = {0.5, 4.0, -1.5};
  double y[3] = {1.0, -2.0, 3.0};
  /* mixed = y0*y1 + x1*y1 + y2*y0: d/dy = (y1 + y2, y0 + x1, y0) */
  double t[3] = {0, 1, 0};
  check_close("mixed fwd y1",
              __enzyme_fwddiff((void *)mixed, enzyme_const, x, enzyme_dup, y, t, enzyme_const, 3), 5.0,
              1e-12);
  double dy[3] = {0};
  __enzyme_autodiff((void *)mixed, enzyme_const, x, enzyme_dup, y, dy, enzyme_const, 3);
  check_close("mixed rev y0", dy[0], 1.0, 1e-12);
  check_close("mixed rev y1", dy[1], 5.0, 1e-12);
  check_close("mixed rev y2", dy[2], 1.0, 1e-12);

  /* through_pointer = y0^3 + x1 y1^2 + y2^3: d/dy = (3 y0^2, 2 x1 y1, 3 y2^2) */
  double dz[3] = {0};
  __enzyme_autodiff((void *)through_pointer, enzyme_const, x, enzyme_dup, y, dz, enzyme_const, 3);
  check_close("pointer rev y0", dz[0], 3.0, 1e-12);
  check_close("pointer rev y1", dz[1], -16.0, 1e-12);
  check_close("pointer rev y2", dz[2], 27.0, 1e-12);
  double t2[3] = {0, 0, 1};
  check_close("pointer fwd y2",
              __enzyme_fwddiff((void *)through_pointer, enzyme_const, x, enzyme_dup, y, t2, enzyme_const, 3),
              27.0, 1e-12);

  /* boundary, n = 3, (b0, b1) = (x0, x1):
   * e = (u1 - b0) u0 + (u2 - u0) u1 + (b1 - u1) u2,
   * d/du = (-b0, 0, b1) */
  double du[3] = {0};
  __enzyme_autodiff((void *)boundary, enzyme_const, x, enzyme_dup, y, du, enzyme_const, 3);
  check_close("boundary rev u0", du[0], -0.5, 1e-12);
  check_close("boundary rev u1", du[1], 0.0, 1e-12);
  check_close("boundary rev u2", du[2], 4.0, 1e-12);
  double t3[3] = {1, 0, 0};
  check_close("boundary fwd u0",
              __enzyme_fwddiff((void *)boundary, enzyme_const, x, enzyme_dup, y, t3, enzyme_const, 3), -0.5,
              1e-12);
  return check_exit();
}
