// RUN: %check-c %s %t
// Reverse mode through a sort: the input is copied into a local array,
// insertion-sorted, and a weighted sum of the sorted values is returned.
// The gradient of x[j] is the weight of the position x[j] was sorted to:
// the reverse sweep must undo the data-dependent swaps.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
void __enzyme_autodiff_v(void *, ...);

enum { N = 7 };

static double sorted_weighted(const double *x, const double *w)
{
  double a[N];
  for (int i = 0; i < N; i++)
    a[i] = x[i];
  for (int i = 1; i < N; i++) {
    double v = a[i];
    int j = i - 1;
    while (j >= 0 && a[j] > v) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = v;
  }
  double s = 0.0;
  for (int i = 0; i < N; i++)
    s += w[i] * a[i] * a[i];
  return s;
}

int main(void)
{
  double x[N] = {0.3, -1.2, 2.5, 0.9, -0.4, 1.7, 0.0}, dx[N] = {0};
  double w[N] = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0};
  __enzyme_autodiff_v((void *)sorted_weighted, enzyme_dup, x, dx, enzyme_const, w);
  for (int j = 0; j < N; j++) {
    int rank = 0; /* how many values are smaller: the sorted position */
    for (int i = 0; i < N; i++)
      rank += x[i] < x[j];
    char what[64];
    snprintf(what, sizeof what, "dx[%d] (sorted to %d)", j, rank);
    check_close(what, dx[j], 2 * w[rank] * x[j], 1e-13);
  }
  return check_exit();
}
