// RUN: %check-c %s %t -ffast-math
// RUN: %kinase-cc -O2 -ffast-math %testinc -S -emit-llvm %s -o - | FileCheck %s
// Code compiled with -ffast-math: the derivative's arithmetic carries the
// primal's algebraic freedoms (not nnan/ninf), and its values stay right.
// The loop is the seed's Gaussian log-likelihood over N data points.
//
// The primal's operations print as `fast`, the derivatives' as the four
// freedoms and nsz (at -O2 both derivatives are inlined into main, where
// the reverse loop's invariant factor is hoisted and the loop vectorised):
// CHECK-LABEL: define {{.*}}@main(
// CHECK:       fmul reassoc nsz arcp contract afn
#include "check.h"
#include <math.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

enum { N = 100 };

static double loglik(const double *th, const double *x, int n) {
  double mu = th[0], s = th[1], q = 0;
  for (int k = 0; k < n; k++) {
    double d = (x[k] - mu) / s;
    q += d * d;
  }
  return -0.5 * q - n * log(s);
}

int main(void) {
  double x[N], th[2] = {0.3, 1.7}, dth[2] = {0, 0};
  for (int k = 0; k < N; k++)
    x[k] = sin(0.37 * k);
  double sum = 0, sumsq = 0;
  for (int k = 0; k < N; k++) {
    sum += x[k] - th[0];
    sumsq += (x[k] - th[0]) * (x[k] - th[0]);
  }
  double want_mu = sum / (th[1] * th[1]), want_s = sumsq / (th[1] * th[1] * th[1]) - N / th[1];
  __enzyme_autodiff((void *)loglik, enzyme_dup, th, dth, enzyme_const, x, N);
  check_close("d/dmu, reverse", dth[0], want_mu, 1e-10);
  check_close("d/ds, reverse", dth[1], want_s, 1e-10);
  double t_mu[2] = {1, 0}, t_s[2] = {0, 1};
  check_close("d/dmu, forward", __enzyme_fwddiff((void *)loglik, enzyme_dup, th, t_mu, enzyme_const, x, N),
              want_mu, 1e-10);
  check_close("d/ds, forward", __enzyme_fwddiff((void *)loglik, enzyme_dup, th, t_s, enzyme_const, x, N),
              want_s, 1e-10);
  return check_exit();
}
