// <enzyme/enzyme> in forward mode: the result shapes (tangent with the
// default DuplicatedNoNeed, primal and tangent with Duplicated, primal with
// Const), tangents of values, references and pointers, and the callables
// Enzyme's header takes: a lambda, a function pointer, a function reference.
// RUN: %check-c %s %t -std=c++17
#include <enzyme/enzyme>

#include "check.h"

static double cube(double x) { return x * x * x; }
static float by_ref(const float &x, const float *y) { return x * *y; }

int main() {
  auto t = enzyme::autodiff<enzyme::Forward>(cube, enzyme::Duplicated{2.0, 1.0});
  check_close("tangent", enzyme::get<0>(t), 12.0, 1e-15);

  auto pt = enzyme::autodiff<enzyme::Forward, enzyme::Duplicated<double>>(
      cube, enzyme::Duplicated<double>(2.0, 1.0));
  check_close("Duplicated: primal", enzyme::get<0>(pt), 8.0, 1e-15);
  check_close("Duplicated: tangent", enzyme::get<1>(pt), 12.0, 1e-15);

  auto c = enzyme::autodiff<enzyme::Forward, enzyme::Const<double>>(
      cube, enzyme::Duplicated<double>(2.0, 1.0));
  check_close("Const: primal", enzyme::get<0>(c), 8.0, 1e-15);

  float x = 3.0f, dx = 1.0f, y = 5.0f, dy = 2.0f;
  auto r = enzyme::autodiff<enzyme::Forward>(by_ref, enzyme::Duplicated<const float &>(x, dx),
                                             enzyme::Duplicated<const float *>(&y, &dy));
  check_close("reference and pointer", enzyme::get<0>(r), 5.0 + 3.0 * 2.0, 1e-6);

  double k = 3.0;
  auto scaled = [k](double v) { return k * v * v; };
  auto l = enzyme::autodiff<enzyme::Forward>(scaled, enzyme::Duplicated{2.0, 1.0});
  check_close("lambda", enzyme::get<0>(l), 12.0, 1e-15);
  auto lr = enzyme::autodiff<enzyme::Reverse>(scaled, enzyme::Active{2.0});
  check_close("lambda, reverse", enzyme::get<0>(enzyme::get<0>(lr)), 12.0, 1e-15);

  double (*fp)(double) = cube;
  auto f = enzyme::autodiff<enzyme::Forward>(fp, enzyme::Duplicated{1.0, 1.0});
  check_close("function pointer", enzyme::get<0>(f), 3.0, 1e-15);
  auto &fr = cube;
  auto g = enzyme::autodiff<enzyme::Forward>(fr, enzyme::Duplicated{1.0, 2.0});
  check_close("function reference", enzyme::get<0>(g), 6.0, 1e-15);
  return check_exit();
}
