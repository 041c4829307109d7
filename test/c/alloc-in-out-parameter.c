// A helper that allocates through an out-parameter and returns the memory:
// `double *scratch(long n) { double *p; posix_memalign((void **)&p, 64,
// ...); ...; return p; }`. The pointer it returns is a load of a local
// that only posix_memalign fills; that was not seen as fresh memory, so the
// call was inactive and the values stored through its result had no
// shadow (a located error here; through a CUDA kernel launch, cudaMalloc
// in such a helper, the gradient was silently 0). Both modes, through a
// second helper that passes its out-parameter on as well.
// RUN: %check-c %s %t
#include <math.h>
#include <stdlib.h>

#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static __attribute__((noinline)) double *scratch(long n) {
  double *p;
  if (posix_memalign((void **)&p, 64, n * sizeof(double)))
    abort();
  for (long i = 0; i < n; i++)
    p[i] = 0;
  return p;
}

// the out-parameter passed on to the allocator
static __attribute__((noinline)) int aligned_doubles(double **out, long n) {
  return posix_memalign((void **)out, 64, n * sizeof(double));
}

static __attribute__((noinline)) double *scratch2(long n) {
  double *p;
  if (aligned_doubles(&p, n))
    abort();
  return p;
}

enum { N = 5 };

static double f(double x) {
  double *t = scratch(N), *u = scratch2(N);
  for (int i = 0; i < N; i++) {
    t[i] = x * (i + 1);
    u[i] = sin(t[i]);
  }
  double s = 0;
  for (int i = 0; i < N; i++)
    s += u[i] * t[i];
  free(t);
  free(u);
  return s;
}

// sum over k = 1..N of k x sin(k x): derivative sum of k sin(k x) + k^2 x cos(k x)
static double df(double x) {
  double s = 0;
  for (int k = 1; k <= N; k++)
    s += k * sin(k * x) + k * k * x * cos(k * x);
  return s;
}

int main(void) {
  for (double x = 0.2; x < 1.5; x += 0.4) {
    check_close("f' reverse", __enzyme_autodiff((void *)f, x), df(x), 1e-12);
    check_close("f' forward", __enzyme_fwddiff((void *)f, x, 1.0), df(x), 1e-12);
  }
  return check_exit();
}
