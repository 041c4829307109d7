// RUN: %check-c %s %t
// Reverse mode through data-dependent maxima: a running maximum seeded with
// an active starting value (unmarked double argument, its gradient is
// returned), a maximum that starts from a constant, the mean of all tied
// maxima collected in a malloc'd list, and a ternary maximum starting from
// -INFINITY with an assert in the loop.
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);

double runmax(double *a, int n, double start)
{
  for (int i = 0; i < n; i++)
    if (a[i] > start)
      start = a[i];
  return start * start;
}

double posmax(double *a, int n)
{
  double m = 0.0;
  for (int i = 0; i < n; i++)
    if (a[i] > m)
      m = a[i];
  return 3.0 * m;
}

double mean_of_max(double *v, int n)
{
  double best = -1e300;
  double *ties = malloc(sizeof(double) * n);
  int count = 0;
  for (int i = 0; i < n; i++) {
    if (v[i] > best) {
      count = 0;
      best = v[i];
    }
    if (v[i] == best)
      ties[count++] = v[i];
  }
  double r = 0.0;
  for (int i = 0; i < count; i++)
    r += ties[i];
  r /= count;
  free(ties);
  return r;
}

double ternmax(double *v, int n)
{
  double r = -INFINITY;
  for (int i = 0; i < n; i++) {
    r = (r > v[i]) ? r : v[i];
    assert(i < 100);
  }
  return r;
}

int main(void)
{
  enum { N = 6 };
  char what[64];
  double a[N] = {1.0, 2.0, 7.5, 3.0, -4.0, 7.0}, da[N] = {0};
  double dstart = __enzyme_autodiff((void *)runmax, a, da, N, 3.25);
  for (int i = 0; i < N; i++) {
    snprintf(what, sizeof what, "runmax da[%d]", i);
    check_close(what, da[i], i == 2 ? 15.0 : 0.0, 1e-14);
  }
  check_close("runmax dstart (not the max)", dstart, 0.0, 0.0);

  for (int i = 0; i < N; i++)
    da[i] = 0;
  dstart = __enzyme_autodiff((void *)runmax, a, da, N, 9.0);
  for (int i = 0; i < N; i++) {
    snprintf(what, sizeof what, "runmax start wins da[%d]", i);
    check_close(what, da[i], 0.0, 0.0);
  }
  check_close("runmax dstart (start is the max)", dstart, 18.0, 1e-14);

  double b[N] = {-1.0, -2.0, -0.5, -3.0, -4.0, -7.0}, db[N] = {0};
  __enzyme_autodiff((void *)posmax, b, db, N);
  for (int i = 0; i < N; i++) {
    snprintf(what, sizeof what, "posmax all negative db[%d]", i);
    check_close(what, db[i], 0.0, 0.0);
  }
  b[4] = 0.25;
  __enzyme_autodiff((void *)posmax, b, db, N);
  for (int i = 0; i < N; i++) {
    snprintf(what, sizeof what, "posmax db[%d]", i);
    check_close(what, db[i], i == 4 ? 3.0 : 0.0, 0.0);
  }

  double v[7] = {-1.0, 4.0, -0.2, 4.0, 1.0, 4.0, 3.9}, dv[7] = {0};
  __enzyme_autodiff((void *)mean_of_max, v, dv, 7);
  for (int i = 0; i < 7; i++) {
    snprintf(what, sizeof what, "mean of tied maxima dv[%d]", i);
    check_close(what, dv[i], v[i] == 4.0 ? 1.0 / 3.0 : 0.0, 1e-14);
  }

  double w[5] = {-1.0, 2.0, -0.2, 2.5, 1.0}, dw[5] = {0};
  __enzyme_autodiff((void *)ternmax, w, dw, 5);
  for (int i = 0; i < 5; i++) {
    snprintf(what, sizeof what, "ternary max dw[%d]", i);
    check_close(what, dw[i], i == 3 ? 1.0 : 0.0, 0.0);
  }
  return check_exit();
}
