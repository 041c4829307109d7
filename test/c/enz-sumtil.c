// RUN: %check-c %s %t
// A loop that breaks once a running sum passes a threshold and zeroes each
// input element after reading it, in forward mode (fixed prototype with
// pointer and int parameters) and reverse mode. Zeroed elements have zero
// tangents afterwards; in reverse mode the gradient is with respect to the
// values before they were zeroed.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern double __enzyme_fwddiff(void *, double *, double *, int);
extern void __enzyme_autodiff(void *, double *, double *, int);

double sumtil(double *v, int n)
{
  double r = 0.0;
  for (int i = 0; i < n; i++) {
    r += v[i] * v[i];
    if (r > 20.0)
      break;
    r += sin(v[i]);
    v[i] = 0;
  }
  return r;
}

int main(void)
{
  char what[64];
  enum { N = 6 };
  const double v0[N] = {1.0, 2.0, 1.5, 3.0, 4.0, 0.5};
  /* primal by hand: which index breaks */
  double r = 0;
  int brk = N;
  for (int i = 0; i < N; i++) {
    r += v0[i] * v0[i];
    if (r > 20.0) {
      brk = i;
      break;
    }
    r += sin(v0[i]);
  }
  check_true("the test breaks early", brk < N - 1);

  double v[N], t[N] = {2.0, 0.5, 1.0, -1.0, 9.0, 8.0};
  double want = 0;
  for (int i = 0; i < N; i++)
    v[i] = v0[i];
  for (int i = 0; i <= brk && i < N; i++)
    want += 2 * v0[i] * t[i] + (i < brk ? cos(v0[i]) * t[i] : 0.0);
  double tt[N];
  for (int i = 0; i < N; i++)
    tt[i] = t[i];
  double got = __enzyme_fwddiff(sumtil, v, tt, N);
  check_close("forward tangent", got, want, 1e-13);
  for (int i = 0; i < N; i++) {
    snprintf(what, sizeof what, "forward: tangent of v[%d] after", i);
    check_close(what, tt[i], i < brk ? 0.0 : t[i], 0.0);
    snprintf(what, sizeof what, "forward: v[%d] after", i);
    check_close(what, v[i], i < brk ? 0.0 : v0[i], 0.0);
  }

  double dv[N] = {0};
  for (int i = 0; i < N; i++)
    v[i] = v0[i];
  __enzyme_autodiff(sumtil, v, dv, N);
  for (int i = 0; i < N; i++) {
    double w = i < brk ? 2 * v0[i] + cos(v0[i]) : i == brk ? 2 * v0[i] : 0.0;
    snprintf(what, sizeof what, "reverse dv[%d]", i);
    check_close(what, dv[i], w, 1e-13);
  }
  return check_exit();
}
