// RUN: %check-c %s %t
// Reverse mode through heap temporaries inside the function: malloc'd
// buffers holding active values, freed before returning, one filled from a
// dup array, one filled from an active scalar with a size given by an
// argument. (calloc: rev-mem-calloc.c.)
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
void __enzyme_autodiff_v(void *, ...);

enum { N = 6 };

/* t = malloc'd copy of x^2 + 1; return sum log(t[i]) */
static double log_sum(const double *x, int n)
{
  double *t = malloc(n * sizeof *t);
  for (int i = 0; i < n; i++)
    t[i] = x[i] * x[i] + 1.0;
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += log(t[i]);
  free(t);
  return s;
}

/* A scalar spread into a heap array of m powers, then summed: sum_{i<m} x^i */
static double powers(double x, int m)
{
  double *p = malloc(m * sizeof *p);
  p[0] = 1.0;
  for (int i = 1; i < m; i++)
    p[i] = p[i - 1] * x;
  double s = 0.0;
  for (int i = 0; i < m; i++)
    s += p[i];
  free(p);
  return s;
}

int main(void)
{
  double x[N] = {0.5, -1.0, 2.0, 0.25, 1.5, -0.75}, dx[N] = {0};

  __enzyme_autodiff_v((void *)log_sum, enzyme_dup, x, dx, N);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "log_sum: dx[%d]", i);
    check_close(what, dx[i], 2 * x[i] / (x[i] * x[i] + 1.0), 1e-13);
  }

  double xv = 0.8, want = 0.0;
  for (int i = 1; i < 7; i++)
    want += i * pow(xv, i - 1);
  check_close("powers, m = 7", __enzyme_autodiff((void *)powers, xv, 7), want, 1e-13);
  return check_exit();
}
