// RUN: %check-c %s %t
// Forward mode through contracted multiply-adds: clang turns a*b + c into
// llvm.fmuladd (-ffp-contract=on, the default), and __builtin_fma / fma
// into llvm.fma. A dot product of three terms exercises chains of them.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

static double muladd(double a, double b, double c) { return a * b + c; }
static double mulsub(double a, double b, double c) { return c - a * b; }
static double dot3(double x, double y, double z) { return x * 2.0 + y * x + z * z; }
static double bfma(double a, double b, double c) { return __builtin_fma(a, b, c); }

int main(void)
{
  volatile double va = 1.5, vb = -2.25, vc = 0.125;
  double a = va, b = vb, c = vc;

  check_close("d(a*b+c)", __enzyme_fwddiff((void *)muladd, enzyme_dup, a, 1.0, enzyme_dup, b, 2.0, enzyme_dup, c, 3.0),
              b + 2.0 * a + 3.0, 1e-14);
  check_close("d(a*b+c) c const",
              __enzyme_fwddiff((void *)muladd, enzyme_dup, a, 1.0, enzyme_dup, b, 2.0, enzyme_const, c),
              b + 2.0 * a, 1e-14);
  check_close("d(c-a*b)", __enzyme_fwddiff((void *)mulsub, enzyme_dup, a, 1.0, enzyme_dup, b, 2.0, enzyme_dup, c, 3.0),
              3.0 - b - 2.0 * a, 1e-14);
  /* d/dx = 2 + y, d/dy = x, d/dz = 2z */
  check_close("d dot3 along (1,1,1)",
              __enzyme_fwddiff((void *)dot3, enzyme_dup, a, 1.0, enzyme_dup, b, 1.0, enzyme_dup, c, 1.0),
              2.0 + b + a + 2 * c, 1e-14);
  check_close("d __builtin_fma", __enzyme_fwddiff((void *)bfma, enzyme_dup, a, 0.0, enzyme_dup, b, 1.0, enzyme_dup, c, 0.0),
              a, 1e-14);
  return check_exit();
}
