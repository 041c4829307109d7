// RUN: %check-c %s %t
// Batched (vector) forward mode: enzyme_width, 2 before the arguments, each
// active scalar followed by one tangent per lane and the tangents of the
// result returned as a structure of two doubles; and pointer arguments
// with one shadow per lane (enzyme_dup, x, dx0, dx1), and with the lanes
// packed in one array (enzyme_dupv with the byte stride between lanes).
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_width, enzyme_dup, enzyme_dupv, enzyme_const;
typedef struct {
  double d0, d1;
} T2;
extern T2 __enzyme_fwddiff(void *, ...);
extern void __enzyme_fwddiff_v(void *, ...);

double f(double x, double y) { return x * y + 1.0 / x + sin(y); }

void vsq(const double *x, double *y, int n)
{
  for (int i = 0; i < n; i++)
    y[i] = x[i] * x[i] * x[i];
}

int main(void)
{
  double x = 2.0, y = 0.5;
  T2 t = __enzyme_fwddiff((void *)f, enzyme_width, 2, x, 1.0, 0.0, y, 0.0, 1.0);
  check_close("lane 0: d/dx", t.d0, y - 1 / (x * x), 1e-14);
  check_close("lane 1: d/dy", t.d1, x + cos(y), 1e-14);

  enum { N = 3 };
  double v[N] = {1.0, 2.0, -1.5}, out[N];
  double t0[N] = {1, 0, 0}, t1[N] = {0, 1, 1}, o0[N] = {0}, o1[N] = {0};
  __enzyme_fwddiff_v((void *)vsq, enzyme_width, 2, enzyme_dup, v, t0, t1, enzyme_dup, out, o0, o1, enzyme_const, N);
  char what[64];
  for (int i = 0; i < N; i++) {
    snprintf(what, sizeof what, "pointer lanes: lane 0 [%d]", i);
    check_close(what, o0[i], 3 * v[i] * v[i] * t0[i], 1e-14);
    snprintf(what, sizeof what, "pointer lanes: lane 1 [%d]", i);
    check_close(what, o1[i], 3 * v[i] * v[i] * t1[i], 1e-14);
  }
  double tv[2][N] = {{0, 0, 1}, {1, 1, 0}}, ov[2][N] = {{0}};
  __enzyme_fwddiff_v((void *)vsq, enzyme_width, 2, enzyme_dupv, sizeof tv[0], v, tv, enzyme_dupv, sizeof ov[0], out,
                     ov, enzyme_const, N);
  for (int l = 0; l < 2; l++)
    for (int i = 0; i < N; i++) {
      snprintf(what, sizeof what, "packed lanes: lane %d [%d]", l, i);
      check_close(what, ov[l][i], 3 * v[i] * v[i] * tv[l][i], 1e-14);
    }
  return check_exit();
}
