// RUN: %check-c %s %t
// Reverse mode with a pointer stored in a struct: struct {double *data; int n;}
// passed dup, with a shadow struct whose data points to the shadow array.
// The gradient goes into the shadow array; the shadow struct itself is only
// read.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
void __enzyme_autodiff_v(void *, ...);

struct darray {
  double *data;
  int n;
};

static double mean_sq(const struct darray *a)
{
  double s = 0.0;
  for (int i = 0; i < a->n; i++)
    s += a->data[i] * a->data[i];
  return s / a->n;
}

/* In place through the stored pointer: data[i] = data[i] * k + 1 */
static void affine(struct darray *a, double k)
{
  for (int i = 0; i < a->n; i++)
    a->data[i] = a->data[i] * k + 1.0;
}

/* Two arrays reached through two structs: sum a[i] * b[i]^2 */
static double wdot(const struct darray *a, const struct darray *b)
{
  double s = 0.0;
  for (int i = 0; i < a->n; i++)
    s += a->data[i] * b->data[i] * b->data[i];
  return s;
}

int main(void)
{
  enum { N = 4 };
  double x[N] = {1.0, -2.0, 0.5, 3.0}, dx[N] = {0, 0, 0, 0};
  double y[N] = {2.0, 1.0, -1.0, 0.25}, dy[N] = {0, 0, 0, 0};
  struct darray a = {x, N}, da = {dx, N};
  struct darray b = {y, N}, db = {dy, N};

  __enzyme_autodiff_v((void *)mean_sq, enzyme_dup, &a, &da);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "mean_sq: dx[%d]", i);
    check_close(what, dx[i], 2 * x[i] / N, 1e-13);
  }
  check_true("mean_sq: shadow struct unchanged", da.data == dx && da.n == N);

  for (int i = 0; i < N; i++)
    dx[i] = 0.0;
  __enzyme_autodiff_v((void *)wdot, enzyme_dup, &a, &da, enzyme_dup, &b, &db);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "wdot: dx[%d]", i);
    check_close(what, dx[i], y[i] * y[i], 1e-13);
    snprintf(what, sizeof what, "wdot: dy[%d]", i);
    check_close(what, dy[i], 2 * x[i] * y[i], 1e-13);
  }

  /* affine with seed s in dx: dx <- k s, dk = sum x_old s */
  double x0[N], s[N] = {1.0, 0.5, -2.0, 1.5};
  for (int i = 0; i < N; i++) {
    x0[i] = x[i];
    dx[i] = s[i];
  }
  double k = 2.0;
  double dk = __enzyme_autodiff((void *)affine, enzyme_dup, &a, &da, enzyme_out, k);
  double want_dk = 0.0;
  for (int i = 0; i < N; i++) {
    want_dk += x0[i] * s[i];
    char what[64];
    snprintf(what, sizeof what, "affine: x[%d]", i);
    check_close(what, x[i], x0[i] * k + 1.0, 1e-13);
    snprintf(what, sizeof what, "affine: dx[%d]", i);
    check_close(what, dx[i], k * s[i], 1e-13);
  }
  check_close("affine: dk", dk, want_dk, 1e-13);
  return check_exit();
}
