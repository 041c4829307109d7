/* A buffer grown in a loop through a helper that takes and returns void *
 * (which shows nothing of what the memory holds): at -O0, where clang
 * writes no TBAA, the caller's variable is a slot assigned twice (null,
 * then the helper's result), and what says the memory holds doubles is
 * how the pointers loaded from that slot are indexed. The realloc's
 * reverse moved no adjoints before (the gradient came back a third of
 * the right one, silently); test/errors/realloc-type-unknown.c is the
 * case with no such evidence. */
// RUN: %check-c %s %t
#include <stdlib.h>

#include "check.h"

double __enzyme_autodiff(void *, ...);
int enzyme_dup, enzyme_const;

static void *grow(void *p, size_t n) { return realloc(p, n); }

/* sum x_i^3, the squares kept in a buffer doubled as it fills */
static double cubes(const double *x, int n) {
  double *buf = NULL;
  int cap = 0;
  for (int i = 0; i < n; i++) {
    if (i == cap) {
      cap = cap ? 2 * cap : 1;
      buf = grow(buf, cap * sizeof(double));
    }
    buf[i] = x[i] * x[i];
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += buf[i] * x[i];
  free(buf);
  return s;
}

int main(void) {
  double x[7] = {1, 2, 3, 0.5, 1.5, 2.5, 0.7}, d[7] = {0};
  __enzyme_autodiff((void *)cubes, enzyme_dup, x, d, enzyme_const, 7);
  for (int i = 0; i < 7; i++)
    check_close("d cubes", d[i], 3 * x[i] * x[i], 1e-12);
  return check_exit();
}
