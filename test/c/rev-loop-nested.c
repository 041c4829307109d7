// RUN: %check-c %s %t
// Reverse mode through nested loops: a quadratic form x^T A x with A
// constant (gradient (A + A^T) x), a matrix-vector product y = A x with A
// and x both dup (seeded through dy: dA = dy x^T, dx = A^T dy), and a
// triangular scalar loop whose inner trip count depends on the outer index.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
void __enzyme_autodiff_v(void *, ...);

enum { N = 4, M = 3 };

static double quad_form(const double *a, const double *x, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      s += x[i] * a[i * n + j] * x[j];
  return s;
}

/* y (m) = A (m x n) x (n) */
static void matvec(const double *a, const double *x, double *y, int m, int n)
{
  for (int i = 0; i < m; i++) {
    double s = 0.0;
    for (int j = 0; j < n; j++)
      s += a[i * n + j] * x[j];
    y[i] = s;
  }
}

/* sum_{i<n} sum_{j<=i} x^j (i + 1) */
static double triangle(double x, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double p = 1.0;
    for (int j = 0; j <= i; j++) {
      s += p * (i + 1);
      p *= x;
    }
  }
  return s;
}

int main(void)
{
  double a[N * N], x[N], dx[N];
  for (int i = 0; i < N * N; i++)
    a[i] = sin(1.0 + i) * 2.0;
  for (int i = 0; i < N; i++) {
    x[i] = 0.5 * i - 0.8;
    dx[i] = 0.0;
  }

  __enzyme_autodiff_v((void *)quad_form, enzyme_const, a, enzyme_dup, x, dx, N);
  for (int i = 0; i < N; i++) {
    double want = 0.0;
    for (int j = 0; j < N; j++)
      want += (a[i * N + j] + a[j * N + i]) * x[j];
    char what[64];
    snprintf(what, sizeof what, "quad_form: dx[%d]", i);
    check_close(what, dx[i], want, 1e-12);
  }

  double b[M * N], db[M * N], y[M], dy[M], w[M] = {1.0, -2.0, 0.5};
  for (int i = 0; i < M * N; i++) {
    b[i] = cos(0.3 * i);
    db[i] = 0.0;
  }
  for (int i = 0; i < N; i++)
    dx[i] = 0.0;
  for (int i = 0; i < M; i++) {
    y[i] = -99.0;
    dy[i] = w[i];
  }
  __enzyme_autodiff_v((void *)matvec, enzyme_dup, b, db, enzyme_dup, x, dx, enzyme_dup, y, dy, M, N);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      char what[64];
      snprintf(what, sizeof what, "matvec: dA[%d][%d]", i, j);
      check_close(what, db[i * N + j], w[i] * x[j], 1e-12);
    }
  for (int j = 0; j < N; j++) {
    double want = 0.0;
    for (int i = 0; i < M; i++)
      want += b[i * N + j] * w[i];
    char what[64];
    snprintf(what, sizeof what, "matvec: dx[%d]", j);
    check_close(what, dx[j], want, 1e-12);
  }
  for (int i = 0; i < M; i++) {
    double want = 0.0;
    for (int j = 0; j < N; j++)
      want += b[i * N + j] * x[j];
    char what[64];
    snprintf(what, sizeof what, "matvec: primal y[%d]", i);
    check_close(what, y[i], want, 1e-12);
    snprintf(what, sizeof what, "matvec: dy[%d] consumed", i);
    check_close(what, dy[i], 0.0, 0.0);
  }

  double xv = 0.9, want = 0.0;
  for (int i = 0; i < 6; i++)
    for (int j = 1; j <= i; j++)
      want += j * pow(xv, j - 1) * (i + 1);
  check_close("triangle", __enzyme_autodiff((void *)triangle, xv, 6), want, 1e-12);
  return check_exit();
}
