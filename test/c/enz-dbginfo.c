// RUN: %check-c %s %t -g -ffast-math
// Compiled with debug information and -ffast-math: the derivative must cope
// with debug records on every value (including ones it caches for the
// reverse sweep) and with fast-math flags on every operation. A long power
// series with __builtin_pow in a static function and a fixed prototype, and
// a loop over an array with a local struct.
#include <math.h>
#include <stdio.h>
#include "check.h"

double __enzyme_autodiff(void *, double, unsigned);
double __enzyme_fwddiff(void *, ...);
void __enzyme_autodiff_v(void *, ...);

static double geom(double x, unsigned n)
{
  double s = 0;
  for (int i = 1; i <= n; i++)
    s += __builtin_pow(x, i);
  return s;
}

struct acc {
  double sum, sq;
  int n;
};

double stats(const double *v, int n)
{
  struct acc a = {0, 0, 0};
  for (int i = 0; i < n; i++) {
    a.sum += v[i];
    a.sq += v[i] * v[i];
    a.n++;
  }
  double mean = a.sum / a.n;
  return a.sq / a.n - mean * mean;
}

int main(void)
{
  /* d/dx sum_{i>=1} x^i = 1/(1-x)^2 */
  check_close("series with -g, reverse", __enzyme_autodiff((void *)geom, 0.5, 10000), 4.0, 1e-7);
  check_close("series with -g, forward", __enzyme_fwddiff((void *)geom, 0.5, 1.0, 10000u), 4.0, 1e-7);
  enum { N = 5 };
  double v[N] = {1.0, 2.0, 4.0, -1.0, 0.5}, dv[N] = {0}, mean = 0;
  for (int i = 0; i < N; i++)
    mean += v[i] / N;
  __enzyme_autodiff_v((void *)stats, v, dv, N);
  char what[64];
  for (int i = 0; i < N; i++) {
    snprintf(what, sizeof what, "variance dv[%d]", i);
    check_close(what, dv[i], 2.0 * (v[i] - mean) / N, 1e-13);
  }
  return check_exit();
}
