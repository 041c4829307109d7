// RUN: %check-c %s %t
// Reverse mode with dup arrays and a scalar result: a dot product (da += b,
// db += a), the same array passed twice (dx += 2x), a sum of squares and a
// Euclidean norm. Shadows that start non-zero are added to, not overwritten.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
void __enzyme_autodiff_v(void *, ...);

enum { N = 7 };

static double dot(const double *a, const double *b, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

static double sumsq(const double *x, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

static double norm(const double *x, int n) { return sqrt(sumsq(x, n)); }

int main(void)
{
  double a[N], b[N], da[N], db[N];
  for (int i = 0; i < N; i++) {
    a[i] = 0.3 * i - 1.0;
    b[i] = cos(1.0 + i);
    da[i] = 0.0;
    db[i] = 10.0 + i; /* non-zero: the gradient is added */
  }
  __enzyme_autodiff_v((void *)dot, enzyme_dup, a, da, enzyme_dup, b, db, N);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "dot: da[%d]", i);
    check_close(what, da[i], b[i], 1e-13);
    snprintf(what, sizeof what, "dot: db[%d] (started at %d)", i, 10 + i);
    check_close(what, db[i], 10.0 + i + a[i], 1e-13);
  }

  for (int i = 0; i < N; i++)
    da[i] = 0.0;
  __enzyme_autodiff_v((void *)dot, enzyme_dup, a, da, enzyme_dup, a, da, N);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "dot(a, a): da[%d]", i);
    check_close(what, da[i], 2 * a[i], 1e-13);
  }

  for (int i = 0; i < N; i++)
    da[i] = 0.0;
  __enzyme_autodiff_v((void *)sumsq, a, da, N);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "sumsq: da[%d]", i);
    check_close(what, da[i], 2 * a[i], 1e-13);
  }

  double r = sqrt(sumsq(b, N));
  for (int i = 0; i < N; i++)
    db[i] = 0.0;
  __enzyme_autodiff_v((void *)norm, enzyme_dup, b, db, enzyme_const, N);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "norm: db[%d]", i);
    check_close(what, db[i], b[i] / r, 1e-13);
  }
  /* and against central differences of the primal */
  for (int i = 0; i < N; i++) {
    double bp[N], bm[N];
    for (int j = 0; j < N; j++)
      bp[j] = bm[j] = b[j];
    double h = central_difference_step(b[i]);
    bp[i] += h;
    bm[i] -= h;
    char what[64];
    snprintf(what, sizeof what, "norm: db[%d] vs central difference", i);
    check_close(what, db[i], (norm(bp, N) - norm(bm, N)) / (2 * h), 1e-6);
  }
  return check_exit();
}
