// RUN: %check-c %s %t
// Nested loops in both modes: a quadratic form over a triangular loop nest
// whose inner bound depends on the outer index, a matrix-vector product into
// an output array whose shadow is seeded, and a 2-D stencil with a
// temporary row overwritten at every outer iteration. Checked against exact
// gradients and central differences.
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

/* sum_{i} sum_{j<=i} A[i][j] x_i x_j */
double trquad(const double *A, const double *x, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++)
      s += A[i * n + j] * x[i] * x[j];
  return s;
}

void matvec(const double *A, const double *x, double *y, int n, int m)
{
  for (int i = 0; i < n; i++) {
    y[i] = 0.0;
    for (int j = 0; j < m; j++)
      y[i] += A[i * m + j] * x[j];
  }
}

/* rows of a grid smoothed and squared, through a temporary row */
double smooth(const double *g, int rows, int cols)
{
  double row[16];
  double s = 0.0;
  for (int r = 0; r < rows; r++) {
    for (int c = 0; c < cols; c++) {
      double l = c > 0 ? g[r * cols + c - 1] : 0.0;
      double rr = c + 1 < cols ? g[r * cols + c + 1] : 0.0;
      row[c] = 0.25 * l + 0.5 * g[r * cols + c] + 0.25 * rr;
    }
    for (int c = 0; c < cols; c++)
      s += row[c] * row[c] * (r + 1);
  }
  return s;
}

enum { N = 5, M = 4, R = 3, C = 6 };
static double A[N * N], B[N * M], x[N], G[R * C];

static double fd_trquad(int k)
{
  double save = x[k], h = 1e-5;
  x[k] = save + h;
  double p = trquad(A, x, N);
  x[k] = save - h;
  double q = trquad(A, x, N);
  x[k] = save;
  return (p - q) / (2 * h);
}

static double fd_smooth(int k)
{
  double save = G[k], h = 1e-5;
  G[k] = save + h;
  double p = smooth(G, R, C);
  G[k] = save - h;
  double q = smooth(G, R, C);
  G[k] = save;
  return (p - q) / (2 * h);
}

int main(void)
{
  char what[64];
  for (int i = 0; i < N * N; i++)
    A[i] = sin(1.0 + i);
  for (int i = 0; i < N * M; i++)
    B[i] = cos(0.5 * i);
  for (int i = 0; i < N; i++)
    x[i] = 0.3 * i - 0.5;
  for (int i = 0; i < R * C; i++)
    G[i] = 0.1 * i * i - 1.0;

  double dx[N] = {0}, dA[N * N] = {0};
  __enzyme_autodiff((void *)trquad, enzyme_dup, A, dA, enzyme_dup, x, dx, enzyme_const, N);
  for (int k = 0; k < N; k++) {
    snprintf(what, sizeof what, "trquad dx[%d]", k);
    check_close(what, dx[k], fd_trquad(k), 1e-7);
    double e[N] = {0};
    e[k] = 1.0;
    snprintf(what, sizeof what, "trquad forward e%d", k);
    check_close(what, __enzyme_fwddiff((void *)trquad, enzyme_const, A, enzyme_dup, x, e, enzyme_const, N), dx[k],
                1e-12);
  }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      snprintf(what, sizeof what, "trquad dA[%d][%d]", i, j);
      check_close(what, dA[i * N + j], j <= i ? x[i] * x[j] : 0.0, 1e-13);
    }

  /* y = B x (N x M), seed dy: dx = B^T dy, dB = dy x^T */
  double xm[M] = {1.0, -2.0, 0.5, 3.0}, dxm[M] = {0}, y[N], dy[N], dB[N * M] = {0};
  for (int i = 0; i < N; i++)
    dy[i] = 1.0 + i;
  __enzyme_autodiff((void *)matvec, enzyme_dup, B, dB, enzyme_dup, xm, dxm, enzyme_dup, y, dy, enzyme_const, N,
                    enzyme_const, M);
  for (int j = 0; j < M; j++) {
    double w = 0.0;
    for (int i = 0; i < N; i++)
      w += B[i * M + j] * (1.0 + i);
    snprintf(what, sizeof what, "matvec dx[%d]", j);
    check_close(what, dxm[j], w, 1e-13);
  }
  for (int i = 0; i < N; i++) {
    double yi = 0;
    for (int j = 0; j < M; j++) {
      yi += B[i * M + j] * xm[j];
      snprintf(what, sizeof what, "matvec dB[%d][%d]", i, j);
      check_close(what, dB[i * M + j], (1.0 + i) * xm[j], 1e-13);
    }
    snprintf(what, sizeof what, "matvec y[%d]", i);
    check_close(what, y[i], yi, 1e-13);
    snprintf(what, sizeof what, "matvec dy[%d] consumed", i);
    check_close(what, dy[i], 0.0, 0.0);
  }
  /* forward: dy = B dx */
  double tx[M] = {0.5, 0.25, -1.0, 2.0}, ty[N] = {0};
  __enzyme_fwddiff((void *)matvec, enzyme_const, B, enzyme_dup, xm, tx, enzyme_dup, y, ty, enzyme_const, N,
                   enzyme_const, M);
  for (int i = 0; i < N; i++) {
    double w = 0;
    for (int j = 0; j < M; j++)
      w += B[i * M + j] * tx[j];
    snprintf(what, sizeof what, "matvec forward ty[%d]", i);
    check_close(what, ty[i], w, 1e-13);
  }

  double dG[R * C] = {0};
  __enzyme_autodiff((void *)smooth, enzyme_dup, G, dG, enzyme_const, R, enzyme_const, C);
  for (int k = 0; k < R * C; k++) {
    snprintf(what, sizeof what, "smooth dG[%d]", k);
    check_close(what, dG[k], fd_smooth(k), 1e-7);
  }
  return check_exit();
}
