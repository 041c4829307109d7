// RUN: %check-c %s %t
// Reverse mode through calls of helper functions, static and not, called
// once and several times, with a different activity at each call site (an
// active argument here, a constant one there).
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
typedef struct { double a, b; } Grad2;
Grad2 __enzyme_autodiff_2(void *, ...);

static double sq(double x) { return x * x; }

/* Not static: external linkage. */
double kinase_test_rev_helper_cube(double x);
double kinase_test_rev_helper_cube(double x) { return x * x * x; }

__attribute__((noinline)) static double mix(double a, double b) { return a * sin(b) + b; }

/* One call of each. */
static double once(double x) { return sq(x) + kinase_test_rev_helper_cube(x); }

/* sq three times on different values */
static double thrice(double x) { return sq(sq(x) + 1.0) - sq(2.0 * x); }

/* mix with x first, then second, then with both arguments constant */
static double sites(double x, double c) { return mix(x, c) + mix(c, x) + mix(c, 1.0); }

int main(void)
{
  volatile double vx = 0.9, vc = 1.7;
  double x = vx, c = vc;

  check_close("once", __enzyme_autodiff((void *)once, x), 2 * x + 3 * x * x, 1e-13);
  check_close("once vs central difference", __enzyme_autodiff((void *)once, x), central_difference(once, x),
              1e-6);
  check_close("thrice", __enzyme_autodiff((void *)thrice, x), 2 * (x * x + 1.0) * 2 * x - 8 * x, 1e-13);
  check_close("helper directly", __enzyme_autodiff((void *)kinase_test_rev_helper_cube, x), 3 * x * x, 1e-13);

  /* d/dx: sin(c) + (c cos(x) + 1); d/dc: x cos(c) + 1 + sin(x) + sin(1) */
  check_close("sites, c const", __enzyme_autodiff((void *)sites, x, enzyme_const, c), sin(c) + c * cos(x) + 1,
              1e-13);
  Grad2 g = __enzyme_autodiff_2((void *)sites, x, c);
  check_close("sites: d/dx", g.a, sin(c) + c * cos(x) + 1, 1e-13);
  check_close("sites: d/dc", g.b, x * cos(c) + 1 + sin(x) + sin(1.0), 1e-13);
  return check_exit();
}
