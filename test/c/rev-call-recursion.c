// RUN: %check-c %s %t
// Reverse mode through recursive functions: a recursive power x^n, a
// recursive sum of squares over an array (pointer and length shrinking),
// and a recursion whose depth depends on the active value.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
void __enzyme_autodiff_v(void *, ...);

static double rpow(double x, int n) { return n == 0 ? 1.0 : x * rpow(x, n - 1); }

static double rsumsq(const double *a, int n) { return n == 0 ? 0.0 : a[0] * a[0] + rsumsq(a + 1, n - 1); }

/* Halves x until it is below 1, then squares: (x / 2^k)^2 */
static double halve(double x) { return x < 1.0 ? x * x : halve(x * 0.5); }

int main(void)
{
  volatile double vx = 1.3;
  double x = vx;

  check_close("rpow, n = 5", __enzyme_autodiff((void *)rpow, x, 5), 5 * pow(x, 4), 1e-13);
  check_close("rpow, n = 1", __enzyme_autodiff((void *)rpow, x, 1), 1.0, 1e-13);
  check_close("rpow, n = 0", __enzyme_autodiff((void *)rpow, x, 0), 0.0, 1e-13);

  double a[5] = {0.5, -1.5, 2.0, 0.25, 1.0}, da[5] = {0};
  __enzyme_autodiff_v((void *)rsumsq, enzyme_dup, a, da, 5);
  for (int i = 0; i < 5; i++) {
    char what[64];
    snprintf(what, sizeof what, "rsumsq: da[%d]", i);
    check_close(what, da[i], 2 * a[i], 1e-13);
  }

  /* x = 5: k = 3, (x/8)^2, derivative 2 x / 64 */
  check_close("halve, x = 5", __enzyme_autodiff((void *)halve, 5.0), 10.0 / 64, 1e-13);
  check_close("halve, x = 0.5", __enzyme_autodiff((void *)halve, 0.5), 1.0, 1e-13);
  return check_exit();
}
