// RUN: %check-c %s %t
// GNU's qsort_r inside differentiated code, both modes: the comparator gets
// the call's context (here the keys an index array is sorted by, and the
// direction of a sort of the active values themselves). The gradient
// follows the permutation the sort chose.
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include "check.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

enum { N = 5 };

static int by_key(const void *a, const void *b, void *keys) {
  const double *k = keys;
  double ka = k[*(const int *)a], kb = k[*(const int *)b];
  return (ka > kb) - (ka < kb);
}

/* sum_r (r + 1) x[idx[r]]^2, idx sorted by keys */
double ranked(const double *x, double *keys) {
  int idx[N];
  for (int i = 0; i < N; i++)
    idx[i] = i;
  qsort_r(idx, N, sizeof *idx, by_key, keys);
  double s = 0;
  for (int r = 0; r < N; r++)
    s += (r + 1) * x[idx[r]] * x[idx[r]];
  return s;
}

static int ordered(const void *a, const void *b, void *descending) {
  double x = *(const double *)a, y = *(const double *)b;
  return (*(int *)descending ? -1 : 1) * ((x > y) - (x < y));
}

/* the sum of the two largest, sorted descending in place */
double top_two(double *x, int n) {
  int descending = 1;
  qsort_r(x, n, sizeof *x, ordered, &descending);
  return x[0] + x[1] * x[1];
}

int main(void) {
  double x[N] = {0.5, -1.0, 2.0, 1.5, 0.25}, keys[N] = {3, 1, 4, 0, 2}, dx[N] = {0};
  /* keys order: 3, 1, 4, 0, 2: ranks 4, 2, 5, 1, 3 */
  int rank[N] = {4, 2, 5, 1, 3};
  __enzyme_autodiff((void *)ranked, enzyme_dup, x, dx, enzyme_const, keys);
  for (int i = 0; i < N; i++)
    check_close("index sorted by keys", dx[i], 2 * rank[i] * x[i], 1e-15);
  double tx[N] = {0, 0, 1, 0, 0};
  check_close("index sorted by keys, forward",
              __enzyme_fwddiff((void *)ranked, enzyme_dup, x, tx, enzyme_const, keys), 2 * 5 * x[2], 1e-15);

  double y[N] = {0.5, -1.0, 2.0, 1.5, 0.25}, dy[N] = {0};
  __enzyme_autodiff((void *)top_two, enzyme_dup, y, dy, enzyme_const, N);
  /* the gradient is with respect to y before the sort: 2.0 was y[2] */
  check_close("sorted in place: largest", dy[2], 1, 1e-15);
  check_close("sorted in place: second", dy[3], 2 * 1.5, 1e-15);
  check_close("sorted in place: others", fabs(dy[0]) + fabs(dy[1]) + fabs(dy[4]), 0, 0);
  double z[N] = {0.5, -1.0, 2.0, 1.5, 0.25}, tz[N] = {0, 0, 0, 1, 0};
  check_close("sorted in place, forward", __enzyme_fwddiff((void *)top_two, enzyme_dup, z, tz, enzyme_const, N),
              2 * 1.5, 1e-15);
  return check_exit();
}
