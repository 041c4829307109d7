// RUN: %check-c %s %t
// Forward mode through a helper that returns a struct of two doubles by
// value (returned in registers on x86-64) and one that returns a larger
// struct (returned through sret memory).
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

struct pair { double a, b; };
struct quad { double v[4]; };

__attribute__((noinline)) static struct pair sin_cos(double x)
{
  struct pair p = {sin(x), cos(x)};
  return p;
}

/* sin(2x) cos(2x) = sin(4x) / 2: d = 2 cos(4x) */
static double use_pair(double x)
{
  struct pair p = sin_cos(x * 2.0);
  return p.a * p.b;
}

__attribute__((noinline)) static struct quad powers(double x)
{
  struct quad q;
  q.v[0] = 1.0;
  for (int i = 1; i < 4; i++)
    q.v[i] = q.v[i - 1] * x;
  return q;
}

/* 1 + 2x + 3x^2 + 4x^3 */
static double use_quad(double x)
{
  struct quad q = powers(x);
  double s = 0.0;
  for (int i = 0; i < 4; i++)
    s += (i + 1) * q.v[i];
  return s;
}

int main(void)
{
  volatile double vx = 0.35;
  double x = vx;
  check_close("d through struct pair", __enzyme_fwddiff((void *)use_pair, enzyme_dup, x, 1.0), 2 * cos(4 * x),
              1e-13);
  check_close("d through struct quad (sret)", __enzyme_fwddiff((void *)use_quad, enzyme_dup, x, 1.0),
              2 + 6 * x + 12 * x * x, 1e-13);
  return check_exit();
}
