// RUN: %check-c %s %t
// In-place updates with a dup array. On entry the shadow holds the adjoint
// of the array's final value (the seed s); on exit, the adjoint of its
// initial value. x[i] = x[i]^2 leaves dx[i] = 2 x_old[i] s[i]; a prefix sum
// x[i] += x[i-1] leaves suffix sums of s; x[i] *= k with k active also
// returns dk = sum x_old[i] s[i].
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
void __enzyme_autodiff_v(void *, ...);

enum { N = 5 };

static void square(double *x, int n)
{
  for (int i = 0; i < n; i++)
    x[i] = x[i] * x[i];
}

static void prefix_sum(double *x, int n)
{
  for (int i = 1; i < n; i++)
    x[i] += x[i - 1];
}

static void scale(double *x, double k, int n)
{
  for (int i = 0; i < n; i++)
    x[i] *= k;
}

/* Two passes over the same memory: x[i] = sin(x[i]), then x[i] = x[i] * x[i]. */
static void two_pass(double *x, int n)
{
  for (int i = 0; i < n; i++)
    x[i] = sin(x[i]);
  for (int i = 0; i < n; i++)
    x[i] = x[i] * x[i];
}

int main(void)
{
  double x0[N] = {1.5, -0.5, 2.0, 0.25, -3.0}, s[N] = {1.0, 2.0, -1.0, 0.5, 3.0};
  double x[N], dx[N];

  for (int i = 0; i < N; i++) {
    x[i] = x0[i];
    dx[i] = s[i];
  }
  __enzyme_autodiff_v((void *)square, enzyme_dup, x, dx, N);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "square: x[%d]", i);
    check_close(what, x[i], x0[i] * x0[i], 1e-13);
    snprintf(what, sizeof what, "square: dx[%d]", i);
    check_close(what, dx[i], 2 * x0[i] * s[i], 1e-13);
  }

  for (int i = 0; i < N; i++) {
    x[i] = x0[i];
    dx[i] = s[i];
  }
  __enzyme_autodiff_v((void *)prefix_sum, enzyme_dup, x, dx, N);
  double acc = 0.0, suffix = 0.0;
  for (int i = 0; i < N; i++) {
    acc += x0[i];
    char what[64];
    snprintf(what, sizeof what, "prefix_sum: x[%d]", i);
    check_close(what, x[i], acc, 1e-13);
  }
  for (int i = N - 1; i >= 0; i--) {
    suffix += s[i];
    char what[64];
    snprintf(what, sizeof what, "prefix_sum: dx[%d]", i);
    check_close(what, dx[i], suffix, 1e-13);
  }

  for (int i = 0; i < N; i++) {
    x[i] = x0[i];
    dx[i] = s[i];
  }
  double k = 1.75;
  double dk = __enzyme_autodiff((void *)scale, enzyme_dup, x, dx, enzyme_out, k, N);
  double want_dk = 0.0;
  for (int i = 0; i < N; i++) {
    want_dk += x0[i] * s[i];
    char what[64];
    snprintf(what, sizeof what, "scale: dx[%d]", i);
    check_close(what, dx[i], k * s[i], 1e-13);
  }
  check_close("scale: dk", dk, want_dk, 1e-13);

  for (int i = 0; i < N; i++) {
    x[i] = x0[i];
    dx[i] = s[i];
  }
  __enzyme_autodiff_v((void *)two_pass, enzyme_dup, x, dx, N);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "two_pass: dx[%d]", i);
    check_close(what, dx[i], 2 * sin(x0[i]) * cos(x0[i]) * s[i], 1e-13);
  }
  return check_exit();
}
