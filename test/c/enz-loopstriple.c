// RUN: %check-c %s %t
// Three nested loops, in both modes: a trilinear contraction with a
// triangular innermost bound, and a loop nest whose innermost loop both reads
// and overwrites the array being differentiated (so the reverse sweep needs
// the values from before each overwrite). Trip counts come from arguments
// and from memory read through a pointer.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

/* sum_{i<n} sum_{j<n} sum_{k<=j} T_ijk u_i v_j w_k, T_ijk = 1 + i + 2j + 3k */
double contract(const double *u, const double *v, const double *w, const int *n)
{
  double s = 0.0;
  for (int i = 0; i < *n; i++)
    for (int j = 0; j < *n; j++)
      for (int k = 0; k <= j; k++)
        s += (1.0 + i + 2 * j + 3 * k) * u[i] * v[j] * w[k];
  return s;
}

/* repeated in-place relaxation: a[j] = a[j] * c + sin(a[j+1]) over sweeps */
double relax(double *a, int sweeps, int n, int inner)
{
  for (int s = 0; s < sweeps; s++)
    for (int j = 0; j + 1 < n; j++)
      for (int t = 0; t < inner; t++)
        a[j] = a[j] * 0.75 + 0.2 * sin(a[j + 1]);
  double r = 0.0;
  for (int j = 0; j < n; j++)
    r += a[j] * a[j];
  return r;
}

enum { N = 4, L = 6 };
static double U[N], V[N], W[N], A0[L];

static double relax_fd(int k)
{
  double a[L], h = 1e-6;
  for (int j = 0; j < L; j++)
    a[j] = A0[j];
  a[k] += h;
  double p = relax(a, 3, L, 2);
  for (int j = 0; j < L; j++)
    a[j] = A0[j];
  a[k] -= h;
  double q = relax(a, 3, L, 2);
  return (p - q) / (2 * h);
}

int main(void)
{
  char what[64];
  int n = N;
  for (int i = 0; i < N; i++) {
    U[i] = 0.5 + i;
    V[i] = 1.0 - 0.3 * i;
    W[i] = 0.2 * i * i - 0.4;
  }
  double du[N] = {0}, dv[N] = {0}, dw[N] = {0};
  __enzyme_autodiff((void *)contract, enzyme_dup, U, du, enzyme_dup, V, dv, enzyme_dup, W, dw, enzyme_const, &n);
  for (int a = 0; a < N; a++) {
    double gu = 0, gv = 0, gw = 0;
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        for (int k = 0; k <= j; k++) {
          double t = 1.0 + i + 2 * j + 3 * k;
          if (i == a)
            gu += t * V[j] * W[k];
          if (j == a)
            gv += t * U[i] * W[k];
          if (k == a)
            gw += t * U[i] * V[j];
        }
    snprintf(what, sizeof what, "contract du[%d]", a);
    check_close(what, du[a], gu, 1e-13);
    snprintf(what, sizeof what, "contract dv[%d]", a);
    check_close(what, dv[a], gv, 1e-13);
    snprintf(what, sizeof what, "contract dw[%d]", a);
    check_close(what, dw[a], gw, 1e-13);
    double e[N] = {0};
    e[a] = 1.0;
    snprintf(what, sizeof what, "contract forward along w%d", a);
    check_close(what,
                __enzyme_fwddiff((void *)contract, enzyme_const, U, enzyme_const, V, enzyme_dup, W, e, enzyme_const,
                                 &n),
                gw, 1e-13);
  }

  for (int j = 0; j < L; j++)
    A0[j] = 0.4 + 0.3 * j - 0.05 * j * j;
  double a[L], da[L] = {0};
  for (int j = 0; j < L; j++)
    a[j] = A0[j];
  __enzyme_autodiff((void *)relax, enzyme_dup, a, da, enzyme_const, 3, enzyme_const, L, enzyme_const, 2);
  for (int k = 0; k < L; k++) {
    snprintf(what, sizeof what, "relax da[%d]", k);
    check_close(what, da[k], relax_fd(k), 1e-7);
  }
  for (int k = 0; k < L; k++) {
    double b[L], tb[L] = {0};
    for (int j = 0; j < L; j++)
      b[j] = A0[j];
    tb[k] = 1.0;
    snprintf(what, sizeof what, "relax forward e%d", k);
    check_close(what, __enzyme_fwddiff((void *)relax, enzyme_dup, b, tb, enzyme_const, 3, enzyme_const, L,
                                       enzyme_const, 2),
                relax_fd(k), 1e-7);
  }
  return check_exit();
}
