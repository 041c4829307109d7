// RUN: %check-c %s %t
// The C library's memory functions on active data: memcpy between heap
// blocks, memmove within one array with overlapping ranges in both
// directions, memset that clears active values (their gradient must be
// dropped), and a struct assignment (an aggregate copy) of records holding
// doubles. Reverse mode against exact values, forward mode along one input.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

struct rec {
  double a, b;
  int tag;
  double c[3];
};

/* result = sum w_i y_i over a shuffled copy of x */
double shuffle(const double *x, int n)
{
  double *y = malloc(sizeof(double) * (n + 2));
  memcpy(y, x, sizeof(double) * n);
  y[n] = y[n + 1] = 0;
  memmove(y + 2, y, sizeof(double) * n); /* shift right by 2: overlap */
  memmove(y, y + 1, sizeof(double) * 3); /* shift left by 1: overlap */
  memset(y + 4, 0, sizeof(double));      /* clear one */
  double s = 0;
  for (int i = 0; i < n + 2; i++)
    s += y[i] * (i + 1);
  free(y);
  return s;
}

double copy_struct(const struct rec *in)
{
  struct rec r = *in;
  struct rec q;
  q = r;
  q.a *= q.b;
  return q.a + q.c[0] * q.c[2] + q.tag;
}

int main(void)
{
  enum { N = 6 };
  double x[N] = {1, 2, 3, 4, 5, 6}, dx[N] = {0};
  /* y after the moves: y = [x0, x0?..] computed by running the primal on
   * unit vectors */
  __enzyme_autodiff((void *)shuffle, x, dx, N);
  char what[64];
  for (int k = 0; k < N; k++) {
    double e[N] = {0};
    e[k] = 1.0;
    double want = shuffle(e, N); /* linear: the weight of x_k */
    snprintf(what, sizeof what, "memcpy/memmove/memset dx[%d]", k);
    check_close(what, dx[k], want, 1e-14);
    snprintf(what, sizeof what, "memcpy/memmove/memset forward e%d", k);
    check_close(what, __enzyme_fwddiff((void *)shuffle, x, e, N), want, 1e-14);
  }

  struct rec in = {1.5, -2.0, 7, {0.5, 3.0, 4.0}}, din;
  memset(&din, 0, sizeof din);
  __enzyme_autodiff((void *)copy_struct, &in, &din);
  check_close("struct copy da", din.a, -2.0, 1e-14);
  check_close("struct copy db", din.b, 1.5, 1e-14);
  check_close("struct copy dc0", din.c[0], 4.0, 1e-14);
  check_close("struct copy dc1", din.c[1], 0.0, 0.0);
  check_close("struct copy dc2", din.c[2], 0.5, 1e-14);
  check_true("struct copy: integer shadow untouched", din.tag == 0);
  return check_exit();
}
