// RUN: %check-c %s %t
// Forward mode through conversions: double -> float -> double (fptrunc,
// fpext), integers converted to floating point (sitofp, uitofp: integer
// inputs are constant), and floating point converted to integers (fptosi,
// fptoui: the derivative through them is zero).
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

/* (float)x squared in float, back to double, plus x */
static double through_float(double x)
{
  float t = (float)x;
  return (double)(t * t) + x;
}

/* Float arithmetic on a double argument, mixed in one expression. */
static double mixed(double x, float k) { return x * k + (float)x * 2.0f; }

static double by_int(double x, int n) { return x * (double)n + (double)n; }
static double by_unsigned(double x, unsigned u) { return x / (double)u + (double)u; }
static double by_long(double x, long n) { return x * n * n; }

/* Converting to an integer cuts the dependence. */
static double to_int(double x) { int k = (int)(x * 10.0); return k * 0.5; }
static double to_int_plus(double x) { return x * x + (int)x; }
static double to_unsigned(double x) { unsigned u = (unsigned)x; return (double)u * x; }

int main(void)
{
  volatile double vx = 1.3;
  double x = vx;
  volatile int vn = -7;
  volatile unsigned vu = 4000000000u;

  check_close("d through float", __enzyme_fwddiff((void *)through_float, enzyme_dup, x, 1.0),
              2.0 * (float)x + 1.0, 1e-6);
  /* k is a float argument marked const: promoted to double through varargs. */
  check_close("d mixed float/double", __enzyme_fwddiff((void *)mixed, enzyme_dup, x, 1.0, enzyme_const, 2.5f),
              2.5 + 2.0, 1e-6);
  check_close("d x*(double)n (n const)", __enzyme_fwddiff((void *)by_int, enzyme_dup, x, 1.0, (int)vn),
              -7.0, 1e-15);
  check_close("d x/(double)u (u const)", __enzyme_fwddiff((void *)by_unsigned, enzyme_dup, x, 1.0, (unsigned)vu),
              1.0 / 4000000000.0, 1e-12);
  check_close("d x*n*n (long n const)", __enzyme_fwddiff((void *)by_long, enzyme_dup, x, 1.0, 3L),
              9.0, 1e-15);

  check_close("d (int)(10x) is zero", __enzyme_fwddiff((void *)to_int, enzyme_dup, x, 1.0), 0.0, 1e-15);
  check_close("d x^2 + (int)x", __enzyme_fwddiff((void *)to_int_plus, enzyme_dup, x, 1.0), 2.0 * x, 1e-12);
  volatile double vbig = 5.5;
  check_close("d (unsigned)x * x", __enzyme_fwddiff((void *)to_unsigned, enzyme_dup, (double)vbig, 1.0),
              5.0, 1e-12);
  return check_exit();
}
