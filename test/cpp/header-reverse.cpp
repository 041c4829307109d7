// <enzyme/enzyme> in reverse mode: the result shapes (a tuple of the Active
// arguments' gradients, the primal result after it with ReverseWithPrimal),
// Active, Const and Duplicated arguments by value, pointer and reference,
// float and double gradients side by side, a Const result, structured
// bindings, and Enzyme's templated __enzyme_autodiff<Result> called directly.
// RUN: %check-c %s %t -std=c++17
#include <enzyme/enzyme>

#include "check.h"

static double mul(double x, double y) { return x * y; }
static float mixed(float a, double b, float c) { return a * (float)b * c; }
static double by_ref(const double &x, const double *y) { return x * x * *y; }
static double bump(double x, double &count) { return x * count++; }
static int sign(double x, double *g) { *g += 2 * x; return x < 0 ? -1 : 1; }

struct pair { double a, b; };

int main() {
  auto r = enzyme::autodiff<enzyme::Reverse>(mul, enzyme::Active<double>(3.0),
                                             enzyme::Active<double>(4.0));
  check_close("d(x*y)/dx", enzyme::get<0>(enzyme::get<0>(r)), 4.0, 1e-15);
  check_close("d(x*y)/dy", enzyme::get<1>(enzyme::get<0>(r)), 3.0, 1e-15);

  auto p = enzyme::autodiff<enzyme::ReverseWithPrimal>(mul, enzyme::Active{3.0},
                                                       enzyme::Const{4.0});
  check_close("with primal: gradient", enzyme::get<0>(enzyme::get<0>(p)), 4.0, 1e-15);
  check_close("with primal: primal", enzyme::get<1>(p), 12.0, 1e-15);

  // float, double, float: the gradients keep their types and places.
  auto [ga, gb, gc] = enzyme::get<0>(enzyme::autodiff<enzyme::Reverse, enzyme::Active<float>>(
      mixed, enzyme::Active<float>(2.0f), enzyme::Active<double>(3.0), enzyme::Active{5.0f}));
  check_close("mixed: a", ga, 15.0, 1e-6);
  check_close("mixed: b", gb, 10.0, 1e-6);
  check_close("mixed: c", gc, 6.0, 1e-6);

  double x = 3.0, dx = 0.0, y = 2.0, dy = 0.0;
  enzyme::autodiff<enzyme::Reverse>(by_ref, enzyme::Duplicated<const double &>(x, dx),
                                    enzyme::Duplicated<const double *>(&y, &dy));
  check_close("reference: dx", dx, 12.0, 1e-15);
  check_close("pointer: dy", dy, 9.0, 1e-15);

  double count = 5.0;
  auto b = enzyme::autodiff<enzyme::Reverse>(bump, enzyme::Active{2.0},
                                             enzyme::Const<double &>(count));
  check_close("Const reference: gradient", enzyme::get<0>(enzyme::get<0>(b)), 5.0, 1e-15);
  check_close("Const reference: written once", count, 6.0, 1e-15);

  // A result that is not a float is Const: only the shadows carry gradients.
  double g = 0.0, dg = 1.0;
  auto s = enzyme::autodiff<enzyme::ReverseWithPrimal>(sign, enzyme::Active{-1.5},
                                                       enzyme::Duplicated<double *>(&g, &dg));
  check_close("Const result: gradient via the shadow", enzyme::get<0>(enzyme::get<0>(s)), 2.0,
              1e-15);
  check_true("Const result: primal", enzyme::get<1>(s) == -1);

  pair two = __enzyme_autodiff<pair>((void *)mul, enzyme_out, 3.0, enzyme_out, 4.0);
  check_close("__enzyme_autodiff<pair>: a", two.a, 4.0, 1e-15);
  check_close("__enzyme_autodiff<pair>: b", two.b, 3.0, 1e-15);
  return check_exit();
}
