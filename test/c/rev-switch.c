// RUN: %check-c %s %t
// Reverse mode through a switch: on a constant integer argument and on an
// integer computed from the active value; cases that fall through.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);

static double by_mode(double x, int mode)
{
  double r = x;
  switch (mode) {
  case 0:
    r = x * x;
    break;
  case 1:
    r = sin(x);
    break;
  case 2:
    r *= 3.0; /* falls through */
  case 3:
    r = r * x;
    break;
  default:
    r = -x;
  }
  return r;
}

/* The piece is chosen by floor(x): a piecewise polynomial. */
static double piecewise(double x)
{
  double s = 1.0;
  switch ((int)floor(x)) {
  case 0:
    s = x;
    break;
  case 1:
    s = x * x;
    break;
  case 2:
    s = x * x * x;
    break;
  default:
    s = exp(x);
  }
  return 2.0 * s;
}

int main(void)
{
  volatile double vx = 1.2;
  double x = vx;

  check_close("mode 0", __enzyme_autodiff((void *)by_mode, x, 0), 2 * x, 1e-12);
  check_close("mode 1", __enzyme_autodiff((void *)by_mode, x, 1), cos(x), 1e-12);
  check_close("mode 2 (falls into 3)", __enzyme_autodiff((void *)by_mode, x, 2), 6 * x, 1e-12);
  check_close("mode 3", __enzyme_autodiff((void *)by_mode, x, enzyme_const, 3), 2 * x, 1e-12);
  check_close("default", __enzyme_autodiff((void *)by_mode, x, 9), -1.0, 1e-12);

  check_close("piece 0", __enzyme_autodiff((void *)piecewise, 0.5), 2.0, 1e-12);
  check_close("piece 1", __enzyme_autodiff((void *)piecewise, x), 4 * x, 1e-12);
  check_close("piece 2", __enzyme_autodiff((void *)piecewise, 2.5), 6 * 2.5 * 2.5, 1e-12);
  check_close("default piece", __enzyme_autodiff((void *)piecewise, 3.5), 2 * exp(3.5), 1e-12);
  check_close("default piece (negative)", __enzyme_autodiff((void *)piecewise, -0.5), 2 * exp(-0.5), 1e-12);
  return check_exit();
}
