// RUN: %check-c %s %t
// A buffer grown with realloc inside the differentiated function while a
// data-dependent loop appends to it (the trip count is only known when the
// running sum passes a threshold), then read back and freed. The shadow
// buffer follows every realloc; the appended values are products of the
// inputs, so the gradient needs the values that moved with each realloc.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

/* Appends a[k % n] * s to a buffer (s = 1 + the running total / 8) until
 * the total passes `limit`; returns the sum of squares of the buffer. */
static double grow(const double *a, int n, double limit)
{
  size_t cap = 2, len = 0;
  double *buf = malloc(cap * sizeof *buf);
  double total = 0;
  for (int k = 0; total < limit; k++) {
    if (len == cap) {
      cap *= 2;
      buf = realloc(buf, cap * sizeof *buf);
    }
    double v = a[k % n] * (1 + total / 8);
    buf[len++] = v;
    total += fabs(v);
  }
  double s = 0;
  for (size_t i = 0; i < len; i++)
    s += buf[i] * buf[i];
  free(buf);
  return s;
}

enum { N = 3 };
static const double base[N] = {0.7, -0.4, 1.1};

static double grow_along(double t)
{
  double a[N];
  for (int i = 0; i < N; i++)
    a[i] = base[i] * (1 + t * (i + 1));
  return grow(a, N, 9.0);
}

int main(void)
{
  double a[N] = {base[0], base[1], base[2]}, da[N] = {0};
  __enzyme_autodiff((void *)grow, enzyme_dup, a, da, enzyme_const, N, enzyme_const, 9.0);
  /* d/dt of grow(base * (1 + t (i+1))) at t = 0 is da . (base_i (i+1)) */
  double dir = 0;
  for (int i = 0; i < N; i++)
    dir += da[i] * base[i] * (i + 1);
  double fd = central_difference(grow_along, 0.0);
  check_close("grow: reverse along a direction", dir, fd, 1e-6);
  check_close("grow: forward along a direction", __enzyme_fwddiff((void *)grow_along, 0.0, 1.0), fd, 1e-6);
  check_close("grow: reverse of the wrapper", __enzyme_autodiff((void *)grow_along, 0.0), fd, 1e-6);
  /* each component against its own central difference */
  for (int i = 0; i < N; i++) {
    double h = 1e-6, saved = a[i];
    a[i] = saved + h;
    double up = grow(a, N, 9.0);
    a[i] = saved - h;
    double down = grow(a, N, 9.0);
    a[i] = saved;
    char what[32];
    snprintf(what, sizeof what, "grow: da[%d]", i);
    check_close(what, da[i], (up - down) / (2 * h), 1e-6);
  }
  return check_exit();
}
