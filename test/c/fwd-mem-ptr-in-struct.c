// RUN: %check-c %s %t
// Forward mode with a pointer stored in a struct: struct {double *data; int n;}
// passed as dup, with a shadow struct whose data points to the shadow array.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);
void __enzyme_fwddiffv(void *, ...);

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

/* Two arrays reached through two structs: sum a[i] * b[i] */
static double dot(const struct darray *a, const struct darray *b)
{
  double s = 0.0;
  for (int i = 0; i < a->n; i++)
    s += a->data[i] * b->data[i];
  return s;
}

int main(void)
{
  enum { N = 4 };
  double x[N] = {1.0, -2.0, 0.5, 3.0}, dx[N] = {0.5, 1.0, -1.0, 2.0};
  double y[N] = {2.0, 1.0, -1.0, 0.25}, dy[N] = {0.0, 0.0, 0.0, 0.0};
  struct darray a = {x, N}, da = {dx, N};
  struct darray b = {y, N}, db = {dy, N};

  double want = 0.0;
  for (int i = 0; i < N; i++)
    want += 2 * x[i] * dx[i];
  check_close("d mean_sq", __enzyme_fwddiff((void *)mean_sq, enzyme_dup, &a, &da), want / N, 1e-14);

  want = 0.0;
  for (int i = 0; i < N; i++)
    want += dx[i] * y[i];
  check_close("d dot (b const tangent 0)", __enzyme_fwddiff((void *)dot, enzyme_dup, &a, &da, enzyme_dup, &b, &db),
              want, 1e-14);
  check_close("d dot (b const)", __enzyme_fwddiff((void *)dot, enzyme_dup, &a, &da, enzyme_const, &b), want,
              1e-14);

  double x0[N], dx0[N];
  for (int i = 0; i < N; i++) {
    x0[i] = x[i];
    dx0[i] = dx[i];
  }
  __enzyme_fwddiffv((void *)affine, enzyme_dup, &a, &da, enzyme_dup, 2.0, -1.0);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "affine: x[%d]", i);
    check_close(what, x[i], x0[i] * 2.0 + 1.0, 1e-15);
    snprintf(what, sizeof what, "affine: dx[%d]", i);
    check_close(what, dx[i], dx0[i] * 2.0 - x0[i], 1e-15);
  }
  check_close("affine: shadow struct's n untouched", (double)da.n, (double)N, 1e-15);
  return check_exit();
}
