// RUN: %check-c %s %t
// Integer and pointer computations inside the differentiated function are
// left alone: index arithmetic, indirect indexing through a constant index
// array, a counter returned through a constant int pointer, pointer walking.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

/* sum over i of (i+1) x[idx[i]] for idx[i] >= 0; counts the terms */
static double gather(const double *x, const int *idx, int n, int *count)
{
  double s = 0.0;
  int c = 0;
  for (int i = 0; i < n; i++) {
    int j = idx[i];
    if (j >= 0) {
      s += x[j] * x[j] * (i + 1);
      c++;
    }
  }
  *count = c;
  return s;
}

/* Walk backwards with stride 2, through computed pointers. */
static double walk(const double *x, int n)
{
  double s = 0.0;
  long k = 1;
  for (long i = n - 1; i >= 0; i -= 2) {
    const double *p = x + i;
    s += *p * (double)k;
    k *= 2;
  }
  return s;
}

/* An integer derived from an active value controls the indexing. */
static double lookup(const double *table, double x)
{
  int i = (int)floor(x);
  double t = x - i;
  return table[i] * (1.0 - t) + table[i + 1] * t;
}

int main(void)
{
  double x[5] = {1.0, 2.0, -1.5, 0.5, 3.0}, dx[5] = {0.1, 0.2, 0.3, 0.4, 0.5};
  int idx[4] = {4, -1, 0, 2};
  int count = -7;
  /* terms: i=0 j=4, i=2 j=0, i=3 j=2 */
  double want = 1 * 2 * x[4] * dx[4] + 3 * 2 * x[0] * dx[0] + 4 * 2 * x[2] * dx[2];
  double got = __enzyme_fwddiff((void *)gather, enzyme_dup, x, dx, enzyme_const, idx, 4, enzyme_const, &count);
  check_close("d gather", got, want, 1e-14);
  check_close("gather: counter written", (double)count, 3.0, 1e-15);

  /* x4 * 1 + x2 * 2 + x0 * 4 */
  check_close("d walk", __enzyme_fwddiff((void *)walk, enzyme_dup, x, dx, 5), 0.5 + 0.6 + 0.4, 1e-14);

  double table[4] = {0.0, 10.0, 30.0, 60.0};
  /* x = 1.25: between 10 and 30, slope 20 */
  check_close("d lookup", __enzyme_fwddiff((void *)lookup, enzyme_const, table, enzyme_dup, 1.25, 1.0), 20.0,
              1e-14);
  return check_exit();
}
