// RUN: %check-c %s %t
// Higher derivatives by nesting requests: a Taylor polynomial for cos built
// with pow and a noinline recursive integer factorial, differentiated
// forward over forward, forward over reverse and reverse over forward, and
// third derivatives by mixing the modes; and the Hessian of a function of an
// array by forward mode over a reverse-mode gradient function. (Reverse over
// reverse is in enz-higherorder-rev.c.)
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) uint64_t fact(uint64_t n)
{
  if (n == 0)
    return 1;
  return n * fact(n - 1);
}

double my_cos(double x)
{
  double r = 0;
  for (uint64_t i = 0; i <= 16; i++) {
    if (i % 2 == 1)
      continue;
    r += pow(x, (double)i) / fact(i) * (i % 4 == 0 ? 1 : -1);
  }
  return r;
}

double d1(double x) { return __enzyme_autodiff((void *)my_cos, x); }

double f1(double x) { return __enzyme_fwddiff((void *)my_cos, x, 1.0); }
double ff2(double x) { return __enzyme_fwddiff((void *)f1, x, 1.0); }
double fr2(double x) { return __enzyme_fwddiff((void *)d1, x, 1.0); }
double rf2(double x) { return __enzyme_autodiff((void *)f1, x); }
double fff3(double x) { return __enzyme_fwddiff((void *)ff2, x, 1.0); }
double rff3(double x) { return __enzyme_autodiff((void *)ff2, x); }
double ffr3(double x) { return __enzyme_fwddiff((void *)fr2, x, 1.0); }

/* E(v) = sum_i v_i^2 v_{i+1} + exp(v_0 v_2) */
double energy(const double *v, int n)
{
  double e = exp(v[0] * v[2]);
  for (int i = 0; i + 1 < n; i++)
    e += v[i] * v[i] * v[i + 1];
  return e;
}

void gradient(const double *v, double *g, int n)
{
  for (int i = 0; i < n; i++)
    g[i] = 0;
  __enzyme_autodiff((void *)energy, enzyme_dup, v, g, enzyme_const, n);
}

int main(void)
{
  double x = 0.9;
  check_close("cos series", my_cos(x), cos(x), 1e-12);
  check_close("first derivative, reverse", d1(x), -sin(x), 1e-12);
  check_close("second derivative, forward over forward", ff2(x), -cos(x), 1e-11);
  check_close("second derivative, forward over reverse", fr2(x), -cos(x), 1e-11);
  check_close("second derivative, reverse over forward", rf2(x), -cos(x), 1e-11);
  check_close("third derivative, forward^3", fff3(x), sin(x), 1e-10);
  check_close("third derivative, reverse over forward^2", rff3(x), sin(x), 1e-10);
  check_close("third derivative, forward^2 over reverse", ffr3(x), sin(x), 1e-10);

  enum { N = 4 };
  double v[N] = {0.5, -0.3, 0.8, 1.1}, H[N][N];
  for (int j = 0; j < N; j++) {
    double dv[N] = {0}, g[N], dg[N] = {0};
    dv[j] = 1.0;
    __enzyme_fwddiff((void *)gradient, enzyme_dup, v, dv, enzyme_dup, g, dg, enzyme_const, N);
    for (int i = 0; i < N; i++)
      H[i][j] = dg[i];
  }
  double Hw[N][N] = {{0}};
  double ex = exp(v[0] * v[2]);
  Hw[0][0] += v[2] * v[2] * ex;
  Hw[2][2] += v[0] * v[0] * ex;
  Hw[0][2] += ex + v[0] * v[2] * ex;
  Hw[2][0] += ex + v[0] * v[2] * ex;
  for (int i = 0; i + 1 < N; i++) {
    Hw[i][i] += 2 * v[i + 1];
    Hw[i][i + 1] += 2 * v[i];
    Hw[i + 1][i] += 2 * v[i];
  }
  char what[64];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      snprintf(what, sizeof what, "Hessian[%d][%d], forward over reverse", i, j);
      check_close(what, H[i][j], Hw[i][j], 1e-13);
    }
  return check_exit();
}
