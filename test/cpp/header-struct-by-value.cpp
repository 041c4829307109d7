// <enzyme/enzyme> with a struct passed by value, which clang passes as
// several values (a struct of two doubles: two doubles; three floats: a
// <2 x float> and a float): each piece becomes one argument with the
// wrapper's activity. Forward mode (Duplicated), reverse mode (Active: the
// gradient comes back as the struct; Const), and a lambda taking a struct.
// RUN: %check-c %s %t -std=c++17
#include <enzyme/enzyme>

#include "check.h"

struct pair {
  double x, y;
};
struct three {
  float a, b, c;
};

static double square(pair p) { return p.x * p.y; }
static double mix(double a, pair p, double b) { return a * p.x + p.y * p.y * b; }
static float fsum(three v) { return v.a * v.b + v.c * v.c; }

int main() {
  double t = enzyme::get<0>(
      enzyme::autodiff<enzyme::Forward>(square, enzyme::Duplicated{pair{2, 3}, pair{70, 110}}));
  check_close("forward, Duplicated<pair>", t, 2 * 110 + 3 * 70, 1e-12);

  auto g = enzyme::get<0>(enzyme::autodiff<enzyme::Reverse>(
      mix, enzyme::Active(2.0), enzyme::Active(pair{3, 4}), enzyme::Active(5.0)));
  auto [ga, gp, gb] = g;
  check_close("reverse: d/da", ga, 3.0, 1e-12);
  check_close("reverse: d/dp.x", gp.x, 2.0, 1e-12);
  check_close("reverse: d/dp.y", gp.y, 2 * 4.0 * 5.0, 1e-12);
  check_close("reverse: d/db", gb, 16.0, 1e-12);

  auto c = enzyme::get<0>(enzyme::autodiff<enzyme::Reverse>(
      mix, enzyme::Active(2.0), enzyme::Const(pair{3, 4}), enzyme::Active(5.0)));
  check_close("reverse, Const<pair>: d/da", enzyme::get<0>(c), 3.0, 1e-12);
  check_close("reverse, Const<pair>: d/db", enzyme::get<1>(c), 16.0, 1e-12);

  three v = enzyme::get<0>(enzyme::get<0>(
      enzyme::autodiff<enzyme::Reverse>(fsum, enzyme::Active(three{1, 2, 3}))));
  check_close("reverse, three floats: d/da", v.a, 2.0, 1e-6);
  check_close("reverse, three floats: d/db", v.b, 1.0, 1e-6);
  check_close("reverse, three floats: d/dc", v.c, 6.0, 1e-6);
  float ft = enzyme::get<0>(
      enzyme::autodiff<enzyme::Forward>(fsum, enzyme::Duplicated{three{1, 2, 3}, three{1, 0, 1}}));
  check_close("forward, three floats", ft, 2.0f + 6.0f, 1e-6);

  double scale = 3.0;
  auto scaled = [scale](pair p) { return scale * p.x * p.x + p.y; };
  double lt = enzyme::get<0>(
      enzyme::autodiff<enzyme::Forward>(scaled, enzyme::Duplicated{pair{2, 1}, pair{1, 1}}));
  check_close("forward, lambda taking a pair", lt, 2 * 3.0 * 2 + 1, 1e-12);
  return check_exit();
}
