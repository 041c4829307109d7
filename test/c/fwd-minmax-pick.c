// RUN: %check-c %s %t
// min and max pass on the derivative of the argument they pick, and nothing
// of the other: flooring a length with fmax(|v|, eps) at v = 0, where the
// length's own derivative is 0/0, gives the derivative of what was written
// (1/eps along each axis), not NaN. Also fmin/fmax in ordinary use, both
// modes, and fdim.
#include <math.h>
#include "check.h"

double __enzyme_fwddiff(void *, ...);
double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

#define EPS 1e-6

/* first component of v / max(|v|, EPS) */
double floored_unit(const double *v)
{
  double len = sqrt(v[0] * v[0] + v[1] * v[1]);
  return v[0] / fmax(len, EPS);
}

double clamp(double x) { return fmin(fmax(x * x, 0.25), 4.0); }

double gap(double x, double y) { return fdim(x * x, y); }

int main(void)
{
  double v[2] = {0, 0}, t0[2] = {1, 0}, t1[2] = {0, 1};
  check_close("fmax floor at the origin, along x", __enzyme_fwddiff((void *)floored_unit, enzyme_dup, v, t0),
              1 / EPS, 1e-9);
  check_close("fmax floor at the origin, along y", __enzyme_fwddiff((void *)floored_unit, enzyme_dup, v, t1), 0.0,
              0);
  double w[2] = {3, 4};
  check_close("fmax floor away from the origin",
              __enzyme_fwddiff((void *)floored_unit, enzyme_dup, w, t0), 16.0 / 125.0, 1e-15);
  double dw[2] = {0};
  __enzyme_autodiff((void *)floored_unit, enzyme_dup, w, dw);
  check_close("fmax floor away from the origin, reverse", dw[0], 16.0 / 125.0, 1e-15);
  check_close("fmax floor away from the origin, reverse y", dw[1], -12.0 / 125.0, 1e-15);

  const double xs[3] = {0.3, 1.5, 2.5}, want[3] = {0.0, 3.0, 0.0};
  for (int i = 0; i < 3; i++) {
    check_close("clamp, forward", __enzyme_fwddiff((void *)clamp, xs[i], 1.0), want[i], 1e-15);
    check_close("clamp, reverse", __enzyme_autodiff((void *)clamp, xs[i]), want[i], 1e-15);
  }
  check_close("fdim above, d/dx", __enzyme_fwddiff((void *)gap, 2.0, 1.0, 1.0, 0.0), 4.0, 1e-15);
  check_close("fdim above, d/dy", __enzyme_fwddiff((void *)gap, 2.0, 0.0, 1.0, 1.0), -1.0, 1e-15);
  check_close("fdim below", __enzyme_fwddiff((void *)gap, 0.5, 1.0, 1.0, 1.0), 0.0, 0);
  return check_exit();
}
