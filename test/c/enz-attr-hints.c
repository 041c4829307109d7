// RUN: %check-c %s %t
// Enzyme's hint attributes through kinase.h, each on code that exercises
// it; derivatives are what they are without them:
//   enzyme_shouldrecompute  reverse mode calls weight() again instead of
//                           recording its result in the loop's tape; on
//                           scaled(), differentiated as a call, and on
//                           global_scale, it changes nothing
//   enzyme_nofree           accepted on functions and globals, no effect
//                           (spelled as the annotation: the name is also a
//                           marker's, which no macro may take)
//   enzyme_elementwise_read host code: no effect (atomics are device code's)
#include <kinase.h>
#include <math.h>
#include <stdlib.h>
#include "check.h"

__attribute__((enzyme_shouldrecompute)) double weight(int k) { return 1.0 / (k + 1); }
__attribute__((enzyme_shouldrecompute)) double scaled(double x, int k) { return weight(k) * sin(x); }
__attribute__((enzyme_shouldrecompute, annotate("enzyme_nofree"))) double global_scale = 1.5;

// sum_k w_k x^2 + w_k sin(x), times global_scale
double series(double x, int n)
{
  double s = 0;
  for (int k = 0; k < n; k++)
    s += weight(k) * x * x + scaled(x, k);
  return s * global_scale;
}

__attribute__((annotate("enzyme_nofree"))) double *copy_of(const double *x, int n)
{
  double *c = malloc(n * sizeof *c);
  for (int i = 0; i < n; i++)
    c[i] = x[i];
  return c;
}

__attribute__((enzyme_elementwise_read)) double dot_self(const double *x, int n)
{
  double *c = copy_of(x, n), s = 0;
  for (int i = 0; i < n; i++)
    s += c[i] * x[i];
  free(c);
  return s;
}

int main(void)
{
  double x = 0.7, h = 0;
  int n = 5;
  for (int k = 0; k < n; k++)
    h += 1.0 / (k + 1);
  double want = (2 * x * h + cos(x) * h) * global_scale;
  check_close("shouldrecompute, reverse", __enzyme_autodiff((void *)series, x, enzyme_const, n), want, 1e-13);
  check_close("shouldrecompute, forward", __enzyme_fwddiff((void *)series, x, 1.0, enzyme_const, n), want, 1e-13);

  double v[3] = {1, -2, 0.5}, dv[3] = {0};
  __enzyme_autodiff((void *)dot_self, v, dv, enzyme_const, 3);
  for (int i = 0; i < 3; i++)
    check_close("nofree and elementwise_read, reverse", dv[i], 2 * v[i], 1e-15);
  double t[3] = {0, 1, 0};
  check_close("nofree and elementwise_read, forward",
              __enzyme_fwddiff((void *)dot_self, v, t, enzyme_const, 3), 2 * v[1], 1e-15);
  return check_exit();
}
