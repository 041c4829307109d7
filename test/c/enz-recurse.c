// RUN: %check-c %s %t
// Recursive functions in reverse and forward mode: a Fibonacci-shaped
// recursion over float pointers (the result is written through a pointer),
// a recursive power, mutually recursive even/odd helpers, and a recursive
// tree reduction over an array with a heap temporary at each level.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

double fibish(float *a, float *b, int n)
{
  if (n <= 0)
    return *a * 2.0 + *b;
  return fibish(a, b, n - 1) + fibish(a, b, n - 2);
}

void fibish_out(float *a, float *b, float *out, int n) { *out = (float)fibish(a, b, n); }

double rpow(double x, int n)
{
  if (n == 0)
    return 1.0;
  return x * rpow(x, n - 1);
}

double odd_part(double x, int n);
double even_part(double x, int n)
{
  if (n == 0)
    return x;
  return cos(odd_part(x, n - 1));
}
double odd_part(double x, int n)
{
  if (n == 0)
    return x * x;
  return sin(even_part(x, n - 1)) + x;
}

double tree(const double *v, int n)
{
  if (n == 1)
    return v[0] * v[0];
  int h = n / 2;
  double *tmp = malloc(2 * sizeof(double));
  tmp[0] = tree(v, h);
  tmp[1] = tree(v + h, n - h);
  double r = tmp[0] + tmp[1] * 0.5;
  free(tmp);
  return r;
}

static double eo_x(double x) { return even_part(x, 5); }

/* leaf k gets weight 0.5^(number of right turns on its path) */
static double tree_weight(int lo, int n, int k)
{
  if (n == 1)
    return 1.0;
  int h = n / 2;
  return k < lo + h ? tree_weight(lo, h, k) : 0.5 * tree_weight(lo + h, n - h, k);
}

int main(void)
{
  char what[64];
  /* leaves of the call tree for n: F(n+2)-ish count; compute by counting */
  int n = 12;
  long leaves[20] = {1, 2};
  for (int k = 2; k < 20; k++)
    leaves[k] = leaves[k - 1] + leaves[k - 2];
  float a = 2.0f, b = 3.0f, da = 0, db = 0, out = 0, dout = 1.0f;
  __enzyme_autodiff((void *)fibish_out, &a, &da, &b, &db, &out, &dout, n);
  check_close("fibish da", da, 2.0 * leaves[n], 1e-6);
  check_close("fibish db", db, 1.0 * leaves[n], 1e-6);
  check_close("fibish primal", out, 7.0 * leaves[n], 1e-6);

  double x = 1.1;
  for (int k = 1; k <= 6; k++) {
    snprintf(what, sizeof what, "rpow n=%d reverse", k);
    check_close(what, __enzyme_autodiff((void *)rpow, x, k), k * pow(x, k - 1), 1e-13);
    snprintf(what, sizeof what, "rpow n=%d forward", k);
    check_close(what, __enzyme_fwddiff((void *)rpow, x, 1.0, k), k * pow(x, k - 1), 1e-13);
  }
  double fd = central_difference(eo_x, 0.6);
  check_close("mutual recursion reverse", __enzyme_autodiff((void *)even_part, 0.6, 5), fd, 1e-6);
  check_close("mutual recursion forward", __enzyme_fwddiff((void *)even_part, 0.6, 1.0, 5), fd, 1e-6);

  enum { M = 7 };
  double v[M], dv[M] = {0};
  for (int i = 0; i < M; i++)
    v[i] = 0.5 * i - 1.0;
  __enzyme_autodiff((void *)tree, v, dv, M);
  for (int i = 0; i < M; i++) {
    snprintf(what, sizeof what, "tree dv[%d]", i);
    check_close(what, dv[i], 2.0 * v[i] * tree_weight(0, M, i), 1e-13);
  }
  return check_exit();
}
