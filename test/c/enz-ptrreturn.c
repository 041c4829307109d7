// RUN: %check-c %s %t
// Helpers that return pointers: the argument pointer returned after a write
// through it, a pointer to an element in the middle of an array, and a
// pointer to a freshly allocated block; the caller reads and writes through
// the returned pointers. A read, a write and a read of the same location
// across three helpers. Reverse and forward mode, results through a pointer
// whose shadow is seeded.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

double rd_square(double *p) { return *p * *p; }

double *wr_scale(double *p, double s)
{
  *p = *p * s;
  return p;
}

double rd(const double *p) { return *p; }

double rwr_helper(double *x)
{
  double s = rd_square(x);
  x = wr_scale(x, s);
  return rd(x);
}

/* *ret = x^3, and *x is overwritten with x^3 */
void rwr(double *__restrict x, double *__restrict ret) { *ret = rwr_helper(x); }

double *middle(double *v, int n) { return v + n / 2; }

__attribute__((noinline)) double *fresh_copy(const double *v, int n)
{
  double *c = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    c[i] = v[i] * (i + 1);
  return c;
}

double use_returned(double *v, int n)
{
  double *m = middle(v, n);
  m[0] = m[0] * m[1];
  double *c = fresh_copy(v, n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += c[i] * v[i];
  free(c);
  return s;
}

enum { N = 5 };
static double V0[N] = {0.5, -1.0, 1.5, 2.0, -0.25};

static double use_fd(int k)
{
  double v[N], h = 1e-6;
  for (int i = 0; i < N; i++)
    v[i] = V0[i];
  v[k] += h;
  double p = use_returned(v, N);
  for (int i = 0; i < N; i++)
    v[i] = V0[i];
  v[k] -= h;
  double q = use_returned(v, N);
  return (p - q) / (2 * h);
}

int main(void)
{
  char what[64];
  double x = 2.0, dx = 0.0, ret = 0.0, dret = 1.0;
  __enzyme_autodiff((void *)rwr, &x, &dx, &ret, &dret);
  check_close("read-write-read dx", dx, 3 * 2.0 * 2.0, 1e-14);
  check_close("read-write-read ret", ret, 8.0, 1e-14);
  check_close("read-write-read x overwritten", x, 8.0, 1e-14);

  x = 1.5;
  double tx = 1.0, r = 0.0, tr = 0.0;
  __enzyme_fwddiff((void *)rwr, &x, &tx, &r, &tr);
  check_close("read-write-read forward: tangent of ret", tr, 3 * 1.5 * 1.5, 1e-14);
  check_close("read-write-read forward: tangent of x", tx, 3 * 1.5 * 1.5, 1e-14);

  double v[N], dv[N] = {0};
  for (int i = 0; i < N; i++)
    v[i] = V0[i];
  __enzyme_autodiff((void *)use_returned, v, dv, N);
  for (int k = 0; k < N; k++) {
    snprintf(what, sizeof what, "returned pointers dv[%d]", k);
    check_close(what, dv[k], use_fd(k), 1e-7);
  }
  for (int k = 0; k < N; k++) {
    double w[N], tw[N] = {0};
    for (int i = 0; i < N; i++)
      w[i] = V0[i];
    tw[k] = 1.0;
    snprintf(what, sizeof what, "returned pointers forward e%d", k);
    check_close(what, __enzyme_fwddiff((void *)use_returned, w, tw, N), use_fd(k), 1e-7);
  }
  return check_exit();
}
