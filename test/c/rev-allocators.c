// RUN: %check-c %s %t
// glibc's other allocators inside differentiated code, both modes: the
// memory they return gets a zeroed shadow as malloc's does. memalign and
// valloc are allocation rows; reallocarray(p, n, size) is realloc of the
// product, whose rule moves the shadow with the memory.
#define _GNU_SOURCE
#include <malloc.h>
#include <math.h>
#include <stdlib.h>
#include "check.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

/* sum x_i^2 + x_i^3, the squares kept in memory grown by reallocarray */
double grown(const double *x, int n) {
  double *a = reallocarray(NULL, n, sizeof *a);
  for (int i = 0; i < n; i++)
    a[i] = x[i] * x[i];
  a = reallocarray(a, 2 * n, sizeof *a);
  for (int i = 0; i < n; i++)
    a[n + i] = a[i] * x[i];
  double s = 0;
  for (int i = 0; i < 2 * n; i++)
    s += a[i];
  free(a);
  return s;
}

/* sum sin^2 x_i + cos x_i, through aligned and page-aligned memory */
double aligned(const double *x, int n) {
  double *a = memalign(64, n * sizeof *a), *b = valloc(n * sizeof *b);
  for (int i = 0; i < n; i++) {
    a[i] = sin(x[i]);
    b[i] = cos(x[i]);
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * a[i] + b[i];
  free(a);
  free(b);
  return s;
}

int main(void) {
  double x[3] = {1, 2, 3}, dx[3] = {0}, dy[3] = {0}, tx[3] = {0, 1, 0};
  __enzyme_autodiff((void *)grown, enzyme_dup, x, dx, enzyme_const, 3);
  for (int i = 0; i < 3; i++)
    check_close("reallocarray", dx[i], 2 * x[i] + 3 * x[i] * x[i], 1e-15);
  check_close("reallocarray, forward", __enzyme_fwddiff((void *)grown, enzyme_dup, x, tx, enzyme_const, 3),
              2 * x[1] + 3 * x[1] * x[1], 1e-15);
  __enzyme_autodiff((void *)aligned, enzyme_dup, x, dy, enzyme_const, 3);
  for (int i = 0; i < 3; i++)
    check_close("memalign and valloc", dy[i], 2 * sin(x[i]) * cos(x[i]) - sin(x[i]), 1e-15);
  check_close("memalign and valloc, forward",
              __enzyme_fwddiff((void *)aligned, enzyme_dup, x, tx, enzyme_const, 3),
              2 * sin(x[1]) * cos(x[1]) - sin(x[1]), 1e-15);
  return check_exit();
}
