// RUN: %check-c %s %t
// realloc in reverse and forward mode: a float buffer grown by one element
// per iteration (starting from NULL) where each element depends on the one
// before; a double buffer grown by doubling its capacity; and a single
// malloc followed by one realloc that keeps the first element. Fixed
// prototypes with float arguments, as Enzyme's tests declare them.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

float __enzyme_autodiff(void *, float, int);
double __enzyme_fwddiff(void *, ...);
double __enzyme_autodiff_d(void *, ...);

float grow1(float inp, int n)
{
  float *x = 0;
  for (int i = 0; i < n; i++) {
    x = (float *)realloc(x, (i + 1) * sizeof(float));
    if (i == 0)
      x[0] = inp;
    else
      x[i] = x[i - 1] * 0.5f + inp;
  }
  float r = x[n - 1];
  free(x);
  return r;
}

double grow2(double a, int n)
{
  int cap = 1, len = 0;
  double *buf = malloc(cap * sizeof(double));
  for (int i = 0; i < n; i++) {
    if (len == cap) {
      cap *= 2;
      buf = realloc(buf, cap * sizeof(double));
    }
    buf[len++] = sin(a * (i + 1));
  }
  double s = 0;
  for (int i = 0; i < len; i++)
    s += buf[i] * buf[i];
  free(buf);
  return s;
}

float once(float inp, int unused)
{
  (void)unused;
  float *x = (float *)malloc(sizeof(float));
  x[0] = inp * inp;
  float *y = (float *)realloc(x, 2 * sizeof(float));
  y[1] = y[0] * inp;
  float r = y[1];
  free(y);
  return r;
}

int main(void)
{
  char what[64];
  /* x_i = x_{i-1}/2 + a with x_0 = a: d x_{n-1}/da = sum_{k<n} 2^-k */
  static const int ns[] = {1, 2, 5, 24};
  for (unsigned k = 0; k < sizeof ns / sizeof *ns; k++) {
    int n = ns[k];
    double want = 2.0 * (1.0 - ldexp(1.0, -n));
    snprintf(what, sizeof what, "realloc by one n=%d, reverse", n);
    check_close(what, __enzyme_autodiff((void *)grow1, 3.0f, n), want, 1e-6);
    snprintf(what, sizeof what, "realloc by one n=%d, forward", n);
    check_close(what, __enzyme_fwddiff((void *)grow1, 3.0f, 1.0f, n), want, 1e-6);
  }
  double a = 0.3;
  for (int n = 1; n <= 9; n += 4) {
    double want = 0;
    for (int i = 0; i < n; i++)
      want += 2 * sin(a * (i + 1)) * cos(a * (i + 1)) * (i + 1);
    snprintf(what, sizeof what, "realloc doubling n=%d, reverse", n);
    check_close(what, __enzyme_autodiff_d((void *)grow2, a, n), want, 1e-13);
    snprintf(what, sizeof what, "realloc doubling n=%d, forward", n);
    check_close(what, __enzyme_fwddiff((void *)grow2, a, 1.0, n), want, 1e-13);
  }
  check_close("single realloc, reverse", __enzyme_autodiff((void *)once, 2.0f, 0), 12.0, 1e-6);
  return check_exit();
}
