// enzyme::context (<enzyme/enzyme>): shadows of globals that outlive a
// request. enzyme::shadow(ctx, g) gives the shadow requests with ctx use for
// global g (zero at first, and g becomes active); a reverse request
// accumulates d f / d g there, a forward one reads g's tangent there; a
// request without the context, or with another, starts from zero and leaves
// ctx's shadows alone. Against the analytic derivatives.
// RUN: %check-c %s %t -std=c++17
// RUN: %check-c %s %t -std=c++17 -fno-exceptions
#include <enzyme/enzyme>

#include "check.h"

double gain = 2.0;
struct Model {
  static double bias;
};
double Model::bias = 0.5;

static double f(double x) { return gain * x * x + Model::bias * x; }

int main() {
  auto ctx = enzyme::context();
  double *dgain = enzyme::shadow(ctx, gain);
  double *dbias = enzyme::shadow(ctx, Model::bias);
  check_close("a new shadow is zero", *dgain + *dbias, 0.0, 0.0);

  auto r = enzyme::autodiff<enzyme::Reverse>(ctx, f, enzyme::Active(3.0));
  check_close("reverse: d/dx", enzyme::get<0>(enzyme::get<0>(r)), 2 * 2.0 * 3.0 + 0.5, 1e-12);
  check_close("reverse: d/dgain in the context", *dgain, 9.0, 1e-12);
  check_close("reverse: d/dbias in the context", *dbias, 3.0, 1e-12);

  enzyme::autodiff<enzyme::Reverse>(ctx, f, enzyme::Active(1.0));
  check_close("a second request accumulates: d/dgain", *dgain, 9.0 + 1.0, 1e-12);

  enzyme::autodiff<enzyme::Reverse>(f, enzyme::Active(3.0));
  check_close("a request without the context leaves it", *dgain, 10.0, 1e-12);

  auto other = enzyme::context();
  enzyme::autodiff<enzyme::Reverse>(other, f, enzyme::Active(2.0));
  check_close("another context: its own shadow", *enzyme::shadow(other, gain), 4.0, 1e-12);
  check_close("another context leaves the first", *dgain, 10.0, 1e-12);

  *dgain = 1.0;
  *dbias = 2.0;
  auto t = enzyme::autodiff<enzyme::Forward>(ctx, f, enzyme::Duplicated<double>(3.0, 0.0));
  check_close("forward: tangents of the globals", enzyme::get<0>(t), 9.0 + 2.0 * 3.0, 1e-12);
  auto t0 = enzyme::autodiff<enzyme::Forward>(f, enzyme::Duplicated<double>(3.0, 1.0));
  check_close("forward without the context", enzyme::get<0>(t0), 2 * 2.0 * 3.0 + 0.5, 1e-12);
  return check_exit();
}
