// RUN: %check-c %s %t
// __enzyme_iter(n, k): n in the function itself, n + k in its derivative,
// n + 2k in a derivative of that. A truncated Taylor series of exp keeps its
// accuracy under differentiation: each derivative of sum_{i<n} x^i/i! drops
// the last term, which the extra k terms give back. Reverse, forward, and
// reverse over reverse.
#include <math.h>
#include <stdint.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
uint64_t __enzyme_iter(uint64_t, uint64_t);

/* sum_{i<n} x^i / i!, n = __enzyme_iter(8, 1) */
double series(double x)
{
  uint64_t n = __enzyme_iter(8, 1);
  double term = 1, sum = 0;
  for (uint64_t i = 0; i < n; i++) {
    sum += term;
    term *= x / (double)(i + 1);
  }
  return sum;
}

static double partial_sum(double x, int n)
{
  double term = 1, sum = 0;
  for (int i = 0; i < n; i++) {
    sum += term;
    term *= x / (i + 1);
  }
  return sum;
}

double dseries(double x) { return __enzyme_autodiff((void *)series, x); }

int main(void)
{
  double x = 0.7;
  /* The primal has 8 terms; a derivative of 9 terms is the same 8-term sum. */
  check_close("primal: 8 terms", series(x), partial_sum(x, 8), 1e-15);
  check_close("reverse: 9 terms differentiated", dseries(x), partial_sum(x, 8), 1e-14);
  check_close("forward: 9 terms differentiated", __enzyme_fwddiff((void *)series, x, 1.0), partial_sum(x, 8),
              1e-14);
  check_close("reverse over reverse: 10 terms", __enzyme_autodiff((void *)dseries, x), partial_sum(x, 8), 1e-13);
  return check_exit();
}
