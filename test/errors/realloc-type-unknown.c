// A buffer grown by realloc in a helper that takes and returns void *,
// where nothing types the memory (the caller only copies into it with
// memcpy before the growth): moving its adjoints needs the element type.
// It was silently dropped (the first element's gradient came back 0); now
// it is an error at the realloc, naming the helper.
// RUN: not %kinase-cc -g -O0 %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 %s -o /dev/null 2>&1 | FileCheck %s
#include <stdlib.h>
#include <string.h>

// CHECK: realloc-type-unknown.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'grow': it reallocates memory whose element type Kinase cannot decide
static void *grow(void *p, unsigned long n) { return realloc(p, n); }

double __enzyme_autodiff(void *, ...);
int enzyme_dup, enzyme_const;

static double f(const double *x, int n, int k) {
  void *buf = grow(NULL, k * sizeof(double));
  memcpy(buf, x, k * sizeof(double));
  buf = grow(buf, n * sizeof(double));
  memcpy((char *)buf + k * sizeof(double), x + k, (n - k) * sizeof(double));
  double *d = buf, s = 0;
  for (int i = 0; i < n; i++)
    s += d[i] * d[i];
  free(buf);
  return s;
}

int main(void) {
  double x[4] = {1, 2, 3, 4}, dx[4] = {0};
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 4, enzyme_const, 1);
  return dx[0] != 2;
}
