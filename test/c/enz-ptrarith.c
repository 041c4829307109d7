// RUN: %check-c %s %t
// Pointer manipulation that goes through integers and unusual shapes:
// addresses converted to uintptr_t, offset and converted back; pointer
// differences used as indices; variably modified array parameters
// (double a[n][m]); a pointer chosen by a data-dependent ternary between
// two dup arrays; and walking an array backwards from one past its end.
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

double via_uintptr(double *v, int n)
{
  double s = 0;
  uintptr_t base = (uintptr_t)v;
  for (int i = 0; i < n; i++) {
    double *p = (double *)(base + (uintptr_t)i * sizeof(double));
    s += *p * *p * (i + 1);
  }
  return s;
}

double by_difference(double *begin, double *end)
{
  double s = 0;
  for (double *p = begin; p != end; p++) {
    ptrdiff_t k = p - begin;
    s += sin(*p) * (double)(k + 1);
  }
  return s;
}

double vla_param(int n, int m, double a[n][m])
{
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      s += a[i][j] * a[(i + 1) % n][j] * (j + 1);
  return s;
}

double choose(double *a, double *b, int n)
{
  double s = 0;
  for (int i = 0; i < n; i++) {
    double *p = (a[i] > b[i]) ? a : b;
    s += p[i] * p[i];
  }
  return s;
}

double backwards(double *v, int n)
{
  double s = 0, w = 1.0;
  for (double *p = v + n; p-- != v;) {
    s += *p * w;
    w *= 2.0;
  }
  return s;
}

int main(void)
{
  enum { N = 5 };
  char what[64];
  double v[N] = {0.5, -1.0, 1.5, 2.0, -0.25}, dv[N] = {0};
  __enzyme_autodiff((void *)via_uintptr, v, dv, N);
  for (int i = 0; i < N; i++) {
    snprintf(what, sizeof what, "through uintptr_t dv[%d]", i);
    check_close(what, dv[i], 2 * v[i] * (i + 1), 1e-14);
  }
  double t[N] = {0, 0, 1, 0, 0};
  check_close("through uintptr_t, forward", __enzyme_fwddiff((void *)via_uintptr, v, t, N), 2 * v[2] * 3, 1e-14);

  double dd[N] = {0};
  __enzyme_autodiff((void *)by_difference, enzyme_dup, v, dd, enzyme_dup, v + N, dd + N);
  for (int i = 0; i < N; i++) {
    snprintf(what, sizeof what, "pointer difference dv[%d]", i);
    check_close(what, dd[i], cos(v[i]) * (i + 1), 1e-14);
  }

  enum { R = 3, C = 4 };
  double a[R][C], da[R][C] = {{0}};
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++)
      a[i][j] = 0.1 * (i * C + j) - 0.4;
  __enzyme_autodiff((void *)vla_param, enzyme_const, R, enzyme_const, C, enzyme_dup, a, da);
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) {
      double want = (a[(i + 1) % R][j] + a[(i + R - 1) % R][j]) * (j + 1);
      snprintf(what, sizeof what, "variably modified parameter da[%d][%d]", i, j);
      check_close(what, da[i][j], want, 1e-14);
    }

  double x[N] = {1, 5, 2, 0, 3}, y[N] = {2, 1, 4, -1, 3}, dx[N] = {0}, dy[N] = {0};
  __enzyme_autodiff((void *)choose, x, dx, y, dy, N);
  for (int i = 0; i < N; i++) {
    int from_x = x[i] > y[i];
    snprintf(what, sizeof what, "pointer select dx[%d]", i);
    check_close(what, dx[i], from_x ? 2 * x[i] : 0.0, 1e-14);
    snprintf(what, sizeof what, "pointer select dy[%d]", i);
    check_close(what, dy[i], from_x ? 0.0 : 2 * y[i], 1e-14);
  }

  double db[N] = {0};
  __enzyme_autodiff((void *)backwards, v, db, N);
  for (int i = 0; i < N; i++) {
    snprintf(what, sizeof what, "backwards walk dv[%d]", i);
    check_close(what, db[i], ldexp(1.0, N - 1 - i), 1e-14);
  }
  return check_exit();
}
