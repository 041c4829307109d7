// RUN: %check-c %s %t
// Output and other side effects inside differentiated functions: printf of
// active values in a loop, fprintf to stderr, puts, fflush, snprintf into a
// local buffer and a counter in a global integer. The derivative runs the
// side effects once per call, as the original does, and they do not disturb
// the derivative. Reverse and forward mode.
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

int evaluations;

double noisy(double *v, int n)
{
  double s = 0;
  char buf[64];
  evaluations++;
  for (int i = 0; i < n; i++) {
    double t = sin(v[i]) * v[i];
    printf("term %d = %.3f\n", i, t);
    s += t;
  }
  snprintf(buf, sizeof buf, "%.2f", s);
  fprintf(stderr, "sum %s (%zu chars)\n", buf, strlen(buf));
  puts("done");
  fflush(stdout);
  return s * s;
}

int main(void)
{
  enum { N = 3 };
  double v[N] = {0.3, 1.1, -0.7}, dv[N] = {0}, s = 0;
  for (int i = 0; i < N; i++)
    s += sin(v[i]) * v[i];
  __enzyme_autodiff((void *)noisy, v, dv, N);
  check_close("one evaluation per reverse call", evaluations, 1, 0);
  char what[64];
  for (int i = 0; i < N; i++) {
    snprintf(what, sizeof what, "reverse dv[%d]", i);
    check_close(what, dv[i], 2 * s * (cos(v[i]) * v[i] + sin(v[i])), 1e-14);
  }
  double t[N] = {1, 1, 1}, want = 0;
  for (int i = 0; i < N; i++)
    want += 2 * s * (cos(v[i]) * v[i] + sin(v[i]));
  check_close("forward", __enzyme_fwddiff((void *)noisy, v, t, N), want, 1e-14);
  check_close("one evaluation per forward call", evaluations, 2, 0);
  return check_exit();
}
