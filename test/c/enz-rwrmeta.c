// RUN: %check-c %s %t
// Reads through a pointer to a pointer in a noinline helper, followed by an
// overwrite of the same location by the caller after the helper returns
// (the helper's reverse pass needs the value from before the overwrite);
// and a loop that reads an element, calls a noinline helper that overwrites
// it, and reads it again. Unmarked double ** arguments (dup) in reverse
// mode, and forward mode.
#include <math.h>
#include <stdio.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double load_cube(double **__restrict__ x)
{
  double *__restrict__ p = *x;
  double v = *p;
  return v * v * v;
}

double overwrite_after(double **__restrict__ x)
{
  double *__restrict__ p = *x;
  double r = load_cube(x);
  p[0] = 2.5;
  return r;
}

__attribute__((noinline)) void halve_sin(double *p) { *p = 0.5 * sin(*p); }

double loop_rwr(double *v, int n)
{
  double s = 0;
  for (int i = 0; i < n; i++) {
    double before = v[i];
    halve_sin(&v[i]);
    s += before * v[i];
  }
  return s;
}

int main(void)
{
  double x = 1.5, dx = 0.0;
  double *xp = &x, *dxp = &dx;
  __enzyme_autodiff((void *)overwrite_after, &xp, &dxp);
  check_close("read through pointer to pointer, then overwrite: dx", dx, 3 * 1.5 * 1.5, 1e-14);
  check_close("the overwrite happened", x, 2.5, 0.0);

  x = 1.5;
  double tx = 1.0, *txp = &tx;
  double t = __enzyme_fwddiff((void *)overwrite_after, &xp, &txp);
  check_close("forward: tangent", t, 3 * 1.5 * 1.5, 1e-14);
  check_close("forward: tangent of the overwritten location", tx, 0.0, 0.0);

  enum { N = 4 };
  double v[N] = {0.3, -0.8, 1.2, 2.0}, v0[N], dv[N] = {0};
  for (int i = 0; i < N; i++)
    v0[i] = v[i];
  __enzyme_autodiff((void *)loop_rwr, v, dv, N);
  char what[64];
  for (int i = 0; i < N; i++) {
    double a = v0[i];
    snprintf(what, sizeof what, "loop read-write-read dv[%d]", i);
    check_close(what, dv[i], 0.5 * sin(a) + 0.5 * a * cos(a), 1e-14);
  }
  return check_exit();
}
