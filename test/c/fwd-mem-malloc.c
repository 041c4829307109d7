// RUN: %check-c %s %t
// Forward mode through heap memory allocated and freed inside the
// differentiated function: malloc'd and calloc'd temporary buffers (their
// shadows must be allocated too, and calloc's shadow starts at zero).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

/* tmp[i] = sin(x[i] * k); return sum tmp[i] * tmp[n-1-i] */
static double with_malloc(const double *x, double k, int n)
{
  double *tmp = malloc(n * sizeof *tmp);
  for (int i = 0; i < n; i++)
    tmp[i] = sin(x[i] * k);
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += tmp[i] * tmp[n - 1 - i];
  free(tmp);
  return s;
}

/* Histogram-like accumulation into a calloc'd buffer (starts at zero). */
static double with_calloc(const double *x, int n)
{
  double *acc = calloc(4, sizeof *acc);
  for (int i = 0; i < n; i++)
    acc[i % 4] += x[i] * x[i];
  double p = acc[0] * acc[1] + acc[2] + acc[3];
  free(acc);
  return p;
}

/* A buffer that lives across a loop and is grown with realloc-free copying. */
static double two_buffers(double x)
{
  double *a = malloc(3 * sizeof *a);
  double *b = malloc(3 * sizeof *b);
  a[0] = x; a[1] = x * x; a[2] = 1.0;
  for (int i = 0; i < 3; i++)
    b[i] = a[2 - i] * 2.0;
  double r = b[0] * b[1] + b[2]; /* 4 x^2 + 2 x */
  free(a);
  free(b);
  return r;
}

int main(void)
{
  enum { N = 5 };
  double x[N] = {0.1, -0.4, 0.9, 1.3, -0.2}, dx[N] = {1.0, -1.0, 0.5, 2.0, 0.0};
  double k = 1.7;

  /* d = sum_i (dtmp[i] tmp[n-1-i] + tmp[i] dtmp[n-1-i]),  dtmp = cos(x k) (dx k + x dk) with dk = 0.5 */
  double tmp[N], dtmp[N], want = 0.0;
  for (int i = 0; i < N; i++) {
    tmp[i] = sin(x[i] * k);
    dtmp[i] = cos(x[i] * k) * (dx[i] * k + x[i] * 0.5);
  }
  for (int i = 0; i < N; i++)
    want += dtmp[i] * tmp[N - 1 - i] + tmp[i] * dtmp[N - 1 - i];
  check_close("d with_malloc",
              __enzyme_fwddiff((void *)with_malloc, enzyme_dup, x, dx, enzyme_dup, k, 0.5, N), want, 1e-13);

  /* acc0 = x0^2 + x4^2, acc1 = x1^2, acc2 = x2^2, acc3 = x3^2 */
  double a0 = x[0] * x[0] + x[4] * x[4], a1 = x[1] * x[1];
  double da0 = 2 * x[0] * dx[0] + 2 * x[4] * dx[4], da1 = 2 * x[1] * dx[1];
  want = da0 * a1 + a0 * da1 + 2 * x[2] * dx[2] + 2 * x[3] * dx[3];
  check_close("d with_calloc", __enzyme_fwddiff((void *)with_calloc, enzyme_dup, x, dx, N), want, 1e-13);

  volatile double vx = 1.25;
  check_close("d two_buffers", __enzyme_fwddiff((void *)two_buffers, enzyme_dup, (double)vx, 1.0),
              8.0 * vx + 2.0, 1e-14);
  return check_exit();
}
