// RUN: %check-c %s %t
// Reverse mode through pointer arithmetic: a pointer walking an array to
// its end, a loop counting down with a stride of 2, and a pointer chosen
// between two dup arrays by a condition (the shadow must be chosen the same
// way).
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
void __enzyme_autodiff_v(void *, ...);

enum { N = 6 };

static double walk(const double *x, int n)
{
  double s = 0.0;
  for (const double *p = x, *end = x + n; p != end; p++)
    s += *p * *p * *p;
  return s;
}

/* x[n-1] x[n-3] ... every second element from the end, multiplied */
static double stride_down(const double *x, int n)
{
  double p = 1.0;
  for (int i = n - 1; i >= 0; i -= 2)
    p *= x[i];
  return p;
}

/* picks a or b by flag, then sum of squares of the picked one plus a[0] */
static double pick(const double *a, const double *b, int flag, int n)
{
  const double *p = flag ? a : b;
  double s = a[0];
  for (int i = 0; i < n; i++)
    s += p[i] * p[i];
  return s;
}

int main(void)
{
  double x[N] = {0.5, -1.5, 2.0, 1.25, -0.75, 1.1}, dx[N] = {0};
  double y[N] = {2.0, 0.5, -1.0, 0.3, 1.7, -2.2}, dy[N] = {0};

  __enzyme_autodiff_v((void *)walk, enzyme_dup, x, dx, N);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "walk: dx[%d]", i);
    check_close(what, dx[i], 3 * x[i] * x[i], 1e-13);
  }

  for (int i = 0; i < N; i++)
    dx[i] = 0.0;
  __enzyme_autodiff_v((void *)stride_down, enzyme_dup, x, dx, N);
  double prod = x[5] * x[3] * x[1];
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "stride_down: dx[%d]", i);
    check_close(what, dx[i], i % 2 ? prod / x[i] : 0.0, 1e-13);
  }

  for (int i = 0; i < N; i++)
    dx[i] = 0.0;
  __enzyme_autodiff_v((void *)pick, enzyme_dup, x, dx, enzyme_dup, y, dy, 1, N);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "pick a: dx[%d]", i);
    check_close(what, dx[i], 2 * x[i] + (i == 0), 1e-13);
    snprintf(what, sizeof what, "pick a: dy[%d]", i);
    check_close(what, dy[i], 0.0, 0.0);
  }
  for (int i = 0; i < N; i++)
    dx[i] = 0.0;
  __enzyme_autodiff_v((void *)pick, enzyme_dup, x, dx, enzyme_dup, y, dy, 0, N);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "pick b: dx[%d]", i);
    check_close(what, dx[i], i == 0 ? 1.0 : 0.0, 1e-13);
    snprintf(what, sizeof what, "pick b: dy[%d]", i);
    check_close(what, dy[i], 2 * y[i], 1e-13);
  }
  return check_exit();
}
