// RUN: %check-c %s %t
// Memory obtained from the program's own allocation helpers (noinline
// functions that return malloc'd or calloc'd blocks, as C codes write
// vec_new / mat_new), filled with active values by the caller in loops of
// various trip counts, including a loop of one iteration and a fill through
// a copy of the pointer, then read back. Reverse and forward mode.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef struct {
  int n;
  double *v;
} vec;

__attribute__((noinline)) double *dvec_new(int n) { return malloc(n * sizeof(double)); }
__attribute__((noinline)) double *dvec_zeros(int n) { return calloc(n, sizeof(double)); }
__attribute__((noinline)) vec *vec_new(int n)
{
  vec *r = malloc(sizeof(vec));
  r->n = n;
  r->v = malloc(n * sizeof(double));
  return r;
}
__attribute__((noinline)) void vec_free(vec *r)
{
  free(r->v);
  free(r);
}

double fill_loop(double x)
{
  double *m = dvec_new(3);
  for (int i = 0; i < 3; i++)
    m[i] = x * (i + 1);
  double r = m[0] * m[1] + m[2];
  free(m);
  return r;
}

double one_iteration(double x)
{
  double *m = dvec_new(1);
  double *p = m;
  for (int k = 0; k < 1; k++)
    p[k] = x;
  double r = m[0] * m[0];
  free(m);
  return r;
}

double accumulate(double x)
{
  double *m = dvec_zeros(4);
  for (int r = 0; r < 3; r++)
    for (int i = 0; i < 4; i++)
      m[i] += sin(x * (i + r));
  double s = 0;
  for (int i = 0; i < 4; i++)
    s += m[i] * m[i];
  free(m);
  return s;
}

double in_struct(double x)
{
  vec *a = vec_new(5);
  for (int i = 0; i < a->n; i++)
    a->v[i] = exp(x * i * 0.1);
  double s = 0;
  for (int i = 0; i < a->n; i++)
    s += a->v[i];
  vec_free(a);
  return s;
}

int main(void)
{
  static const double xs[] = {0.4, 1.3};
  for (int k = 0; k < 2; k++) {
    double x = xs[k];
    check_both_modes(fill_loop, x, 1e-7);
    check_both_modes(one_iteration, x, 1e-7);
    check_both_modes(accumulate, x, 1e-7);
    check_both_modes(in_struct, x, 1e-7);
  }
  return check_exit();
}
