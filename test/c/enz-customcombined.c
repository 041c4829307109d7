// RUN: %check-c %s %t
// Custom gradients registered with __enzyme_register_gradient_*: an
// augmented forward function that returns a heap tape, and a reverse
// function that reads and frees it, called once per loop iteration on
// different memory (so each iteration must get its own tape back). The
// custom rule is deliberately not the true derivative (it scales by 10), so
// the checks can tell that it was used. The augmented function's primal
// output is the one the caller sees.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void sqr_into(const double *src, double *dst) { *dst = *src * *src; }

static int n_aug, n_rev, tapes_ok;

void *sqr_aug(const double *src, const double *dsrc, double *dst, double *ddst)
{
  (void)dsrc, (void)ddst;
  n_aug++;
  double *tape = malloc(2 * sizeof(double));
  tape[0] = *src;
  tape[1] = 12345.0;
  *dst = *src * *src;
  return tape;
}

void sqr_rev(const double *src, double *dsrc, const double *dst, double *ddst, void *tape)
{
  (void)dst;
  n_rev++;
  double *t = tape;
  if (t[1] == 12345.0 && t[0] == *src)
    tapes_ok++;
  *dsrc += 10.0 * 2.0 * t[0] * *ddst;
  *ddst = 0.0;
  free(tape);
}

void *__enzyme_register_gradient_sqr[3] = {(void *)sqr_into, (void *)sqr_aug, (void *)sqr_rev};

double sum_squares(const double *x, int n)
{
  double s = 0;
  for (int i = 0; i < n; i++) {
    double y;
    sqr_into(&x[i], &y);
    s += y * (i + 1);
  }
  return s;
}

double one(double x)
{
  double y;
  sqr_into(&x, &y);
  return sin(y);
}

int main(void)
{
  enum { N = 5 };
  char what[64];
  double x[N] = {0.5, -1.0, 2.0, 0.25, 3.0}, dx[N] = {0};
  __enzyme_autodiff((void *)sum_squares, x, dx, N);
  for (int i = 0; i < N; i++) {
    snprintf(what, sizeof what, "custom rule in a loop dx[%d]", i);
    check_close(what, dx[i], 10.0 * 2.0 * x[i] * (i + 1), 1e-14);
  }
  check_close("augmented calls", n_aug, N, 0);
  check_close("reverse calls", n_rev, N, 0);
  check_close("each reverse call got its own tape", tapes_ok, N, 0);

  n_aug = n_rev = tapes_ok = 0;
  double v = 0.7;
  check_close("custom rule on a local, scalar entry", __enzyme_autodiff((void *)one, v), cos(v * v) * 10.0 * 2.0 * v,
              1e-14);
  check_close("augmented calls, scalar", n_aug, 1, 0);
  check_close("reverse calls, scalar", n_rev, 1, 0);
  check_close("tape, scalar", tapes_ok, 1, 0);
  return check_exit();
}
