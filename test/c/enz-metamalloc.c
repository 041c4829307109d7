// RUN: %check-c %s %t
// Not supported yet: allocation through function pointers (indirect calls).
// Allocation through function pointers: malloc reached through a pointer
// kept in a global structure and through a static global pointer, inside
// noinline wrappers, with the active value squared in place by another
// noinline function. Also calloc reached the same way, and free through a
// pointer. Reverse and forward mode.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

struct allocator {
  int count;
  void *(*alloc)(size_t);
  void (*release)(void *);
} heap = {0, malloc, free};

static void *(*zalloc)(size_t, size_t) = calloc;

__attribute__((noinline)) void *meta_alloc(size_t size) { return heap.alloc(size); }

__attribute__((noinline)) void *meta_zalloc(int n) { return zalloc((size_t)n, sizeof(double)); }

__attribute__((noinline)) void square_in_place(double *p) { *p *= *p; }

double via_struct(double x)
{
  double *m = (double *)meta_alloc(2 * sizeof(double));
  m[0] = x;
  m[1] = sin(x);
  square_in_place(m);
  square_in_place(m + 1);
  double r = m[0] + m[1];
  heap.release(m);
  return r;
}

double via_static(double x)
{
  double *m = (double *)meta_zalloc(4);
  for (int i = 0; i < 4; i++)
    m[i] += x * (i + 1);
  double r = 0;
  for (int i = 0; i < 4; i++)
    r += m[i] * m[i];
  free(m);
  return r;
}

int main(void)
{
  double x = 0.8;
  double want = 2 * x + 2 * sin(x) * cos(x);
  check_close("malloc via struct pointer, reverse", __enzyme_autodiff((void *)via_struct, x), want, 1e-14);
  check_close("malloc via struct pointer, forward", __enzyme_fwddiff((void *)via_struct, x, 1.0), want, 1e-14);
  /* sum (x (i+1))^2 = 30 x^2 */
  check_close("calloc via static pointer, reverse", __enzyme_autodiff((void *)via_static, x), 60 * x, 1e-14);
  check_close("calloc via static pointer, forward", __enzyme_fwddiff((void *)via_static, x, 1.0), 60 * x, 1e-14);
  return check_exit();
}
