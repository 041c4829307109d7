// RUN: %check-c %s %t
// Derivatives at points where the textbook formula divides by zero or
// multiplies an infinity by zero, where Enzyme's rules give the limit:
// pow(x, y) at x = 0 with respect to y (log(0) * 0 must read as 0), powf at
// x = 0 with y = 1 (dx = 1, dy = 0), fabs at +0 and -0 (the sign of the zero
// picks the side), fmax/fmin at ties, and sqrt of a square at a nonzero
// point. Reverse and forward mode.
#include <math.h>
#include <stdio.h>
#include "check.h"

void __enzyme_autodiff(void *, ...);
double __enzyme_autodiff_d(void *, ...);
double __enzyme_fwddiff(void *, ...);

void fpow(float *x, float *y, float *out) { *out = __builtin_powf(*x, *y); }
double dpow(double x, double y) { return pow(x, y); }
double dabs(double x) { return fabs(x); }
double negsq_abs(double x) { return fabs(-x * x); }
double d_negsq_abs(double x) { return __enzyme_fwddiff((void *)negsq_abs, x, 1.0); }
double maxsq(double x) { return fmax(x * x, 4.0) + fmin(x, 2.0); }

int main(void)
{
  float x = 0.0f, y = 1.0f, dx = 0.0f, dy = 0.0f, out = 0.0f, dout = 1.0f;
  __enzyme_autodiff((void *)fpow, &x, &dx, &y, &dy, &out, &dout);
  check_close("powf(0, 1) value", out, 0.0, 0.0);
  check_close("powf(0, 1) dx", dx, 1.0, 1e-7);
  check_close("powf(0, 1) dy", dy, 0.0, 1e-7);

  x = 0.0f, y = 2.0f, dx = 0.0f, dy = 0.0f, dout = 1.0f;
  __enzyme_autodiff((void *)fpow, &x, &dx, &y, &dy, &out, &dout);
  check_close("powf(0, 2) dx", dx, 0.0, 1e-7);
  check_close("powf(0, 2) dy", dy, 0.0, 1e-7);

  check_close("pow(0, 3) forward along y", __enzyme_fwddiff((void *)dpow, 0.0, 0.0, 3.0, 1.0), 0.0, 1e-14);
  check_close("pow(0, 3) forward along x", __enzyme_fwddiff((void *)dpow, 0.0, 1.0, 3.0, 0.0), 0.0, 1e-14);
  check_close("pow(2, 3) forward along y", __enzyme_fwddiff((void *)dpow, 2.0, 0.0, 3.0, 1.0), 8.0 * log(2.0), 1e-14);

  check_close("fabs'(+0), forward", __enzyme_fwddiff((void *)dabs, 0.0, 1.0), 1.0, 0.0);
  check_close("fabs'(-0), forward", __enzyme_fwddiff((void *)dabs, -0.0, 1.0), -1.0, 0.0);
  check_close("fabs'(+0), reverse", __enzyme_autodiff_d((void *)dabs, 0.0), 1.0, 0.0);
  check_close("fabs'(-0), reverse", __enzyme_autodiff_d((void *)dabs, -0.0), -1.0, 0.0);
  check_close("fabs'(-2), reverse", __enzyme_autodiff_d((void *)dabs, -2.0), -1.0, 0.0);
  check_close("d/dx fabs(-x^2) at 0, forward", __enzyme_fwddiff((void *)negsq_abs, 0.0, 1.0), 0.0, 1e-14);
  check_close("d/dx fabs(-x^2) at 0, reverse", __enzyme_autodiff_d((void *)negsq_abs, 0.0), 0.0, 1e-14);
  check_close("d/dx fabs(-x^2) at 1.5, reverse", __enzyme_autodiff_d((void *)negsq_abs, 1.5), 3.0, 1e-14);

  /* fabs(-x^2) = x^2: second derivative 2 everywhere, also at 0 where the
   * inner value is -0.0 */
  check_close("second derivative of fabs(-x^2) at 0", __enzyme_fwddiff((void *)d_negsq_abs, 0.0, 1.0), 2.0, 1e-14);
  check_close("second derivative of fabs(-x^2) at 1.5", __enzyme_fwddiff((void *)d_negsq_abs, 1.5, 1.0), 2.0, 1e-14);

  check_close("fmax/fmin away from ties, reverse", __enzyme_autodiff_d((void *)maxsq, 3.0), 6.0, 1e-14);
  check_close("fmax/fmin away from ties, forward", __enzyme_fwddiff((void *)maxsq, 1.0, 1.0), 1.0, 1e-14);
  double tie = __enzyme_autodiff_d((void *)maxsq, 2.0);
  check_true("fmax/fmin at a tie gives a finite one-sided value", isfinite(tie) && tie >= 1.0 && tie <= 5.0);
  return check_exit();
}
