// RUN: %check-c %s %t
// Custom forward derivatives registered with __enzyme_register_derivative_*:
// one on a function that writes its result through a pointer (the derivative
// gets the primal and tangent of each pointer argument), one on a function
// returning a double (the derivative gets value and tangent of the argument
// and returns the tangent of the result), and one on a static function.
// The rules are deliberately off by a factor, so the checks can tell that
// they were used; they are called once per use, also inside a loop.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);

static int n_cube, n_soft, n_st;

__attribute__((noinline)) void cube_into(const double *src, double *dst) { *dst = *src * *src * *src; }
void cube_tangent(const double *src, const double *dsrc, double *dst, double *ddst)
{
  n_cube++;
  *dst = *src * *src * *src;
  *ddst = 100.0 * 3.0 * *src * *src * *dsrc;
}
void *__enzyme_register_derivative_cube[] = {(void *)cube_into, (void *)cube_tangent};

__attribute__((noinline)) double softplus(double x) { return log1p(exp(x)); }
double softplus_tangent(double x, double dx)
{
  n_soft++;
  return 2.0 * dx / (1.0 + exp(-x));
}
void *__enzyme_register_derivative_softplus[] = {(void *)softplus, (void *)softplus_tangent};

__attribute__((noinline)) static double st(double x) { return x * 4.0; }
static double st_tangent(double x, double dx)
{
  (void)x;
  n_st++;
  return 5.0 * dx;
}
void *__enzyme_register_derivative_st[] = {(void *)st, (void *)st_tangent};

double use_cube(double x)
{
  double y;
  cube_into(&x, &y);
  return y + x;
}

double loop_soft(const double *v, int n)
{
  double s = 0;
  for (int i = 0; i < n; i++)
    s += softplus(v[i]) * (i + 1);
  return s;
}

double use_st(double x) { return st(x) * x; }

int main(void)
{
  double x = 0.6;
  check_close("custom tangent through pointers", __enzyme_fwddiff((void *)use_cube, x, 1.0), 300.0 * x * x + 1.0,
              1e-13);
  check_close("pointer rule called once", n_cube, 1, 0);

  double v[4] = {0.5, -1.0, 2.0, 0.0}, t[4] = {1.0, 1.0, 1.0, 1.0};
  double want = 0;
  for (int i = 0; i < 4; i++)
    want += 2.0 / (1.0 + exp(-v[i])) * (i + 1);
  check_close("custom tangent in a loop", __enzyme_fwddiff((void *)loop_soft, enzyme_dup, v, t, enzyme_const, 4), want,
              1e-13);
  check_close("scalar rule called per iteration", n_soft, 4, 0);

  /* d/dx st(x) x with st' := 5: 5 x + 4 x */
  check_close("custom tangent of a static function", __enzyme_fwddiff((void *)use_st, x, 1.0), 9.0 * x, 1e-13);
  check_close("static rule called once", n_st, 1, 0);
  return check_exit();
}
