// RUN: %check-c %s %t
// The activity markers defined (not just declared) by the program, as some
// of Enzyme's tests do with `int enzyme_const, enzyme_dup;` at file scope,
// with only some of them present. Forward mode through a nested loop that
// reads, squares and zeroes a 2-D array, with the inner trip count read
// through a constant int pointer that the function overwrites at the end;
// reverse mode on the same function.
#include <math.h>
#include <stdio.h>
#include "check.h"

int enzyme_const, enzyme_dup;
double __enzyme_fwddiff(void *, ...);
double __enzyme_autodiff(void *, ...);

double rwr(double *__restrict a, int *__restrict n)
{
  double s = 0;
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < *n; j++) {
      s += a[6 * i + j] * a[6 * i + j];
      a[6 * i + j] = 0;
    }
  *n = 3;
  return s;
}

int main(void)
{
  enum { N = 6 };
  int n = 5;
  double a[N][N], t[N][N];
  double want = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      a[i][j] = i * 10 + j;
      t[i][j] = 1.0 + 0.5 * j;
      if (j < n)
        want += 2 * a[i][j] * t[i][j];
    }
  double got = __enzyme_fwddiff((void *)rwr, enzyme_dup, (double *)a, (double *)t, enzyme_const, &n);
  check_close("forward tangent", got, want, 1e-13);
  check_true("the function wrote *n", n == 3);
  check_close("tangent of a zeroed element", t[2][1], 0.0, 0.0);
  check_close("tangent of an untouched element", t[2][5], 1.0 + 0.5 * 5, 0.0);

  n = 5;
  double b[N][N], db[N][N] = {{0}};
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      b[i][j] = i * 10 + j;
  __enzyme_autodiff((void *)rwr, enzyme_dup, (double *)b, (double *)db, enzyme_const, &n);
  char what[64];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      snprintf(what, sizeof what, "reverse db[%d][%d]", i, j);
      check_close(what, db[i][j], j < 5 ? 2.0 * (i * 10 + j) : 0.0, 1e-14);
    }
  return check_exit();
}
