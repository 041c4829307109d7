// RUN: %check-c %s %t
// Reverse mode reading constant global memory: a global table of
// coefficients (a polynomial evaluated by Horner's rule) and a global scalar
// parameter. Globals have no shadow; they are constants of the derivative.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);

static const double coef[5] = {1.0, -2.0, 0.5, 3.0, -0.25};
double kinase_test_rev_global_scale = 2.5;

/* sum coef[i] x^i by Horner */
static double horner(double x)
{
  double p = 0.0;
  for (int i = 4; i >= 0; i--)
    p = p * x + coef[i];
  return p;
}

static double scaled(double x) { return kinase_test_rev_global_scale * x * x; }

int main(void)
{
  double x = 1.3, want = 0.0;
  for (int i = 1; i < 5; i++)
    want += i * coef[i] * pow(x, i - 1);
  check_close("horner", __enzyme_autodiff((void *)horner, x), want, 1e-13);
  check_close("horner vs central difference", __enzyme_autodiff((void *)horner, x), central_difference(horner, x),
              1e-6);
  check_close("global scale", __enzyme_autodiff((void *)scaled, x), 2 * 2.5 * x, 1e-13);
  kinase_test_rev_global_scale = -1.0;
  check_close("global scale changed", __enzyme_autodiff((void *)scaled, x), -2 * x, 1e-13);
  return check_exit();
}
