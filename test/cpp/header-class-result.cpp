// <enzyme/enzyme> with a function that returns a class in memory (sret):
// std::vector<double> results in forward mode, as tangent, as primal and
// tangent, and as primal (Const).
// RUN: %check-c %s %t -std=c++17 -fno-exceptions
#include <enzyme/enzyme>
#include <vector>

#include "check.h"

static std::vector<double> scaled(const std::vector<double> &v) {
  std::vector<double> r(v.size());
  for (size_t i = 0; i < v.size(); i++)
    r[i] = 2 * v[i] * v[i];
  return r;
}

int main() {
  std::vector<double> v = {1.0, 3.0}, dv = {1.0, 0.5};
  using Vec = std::vector<double>;
  auto t = enzyme::autodiff<enzyme::Forward, enzyme::DuplicatedNoNeed<Vec>>(
      scaled, enzyme::Duplicated<const Vec &>(v, dv));
  check_close("tangent[0]", enzyme::get<0>(t)[0], 4.0, 1e-15);
  check_close("tangent[1]", enzyme::get<0>(t)[1], 6.0, 1e-15);

  auto pt = enzyme::autodiff<enzyme::Forward, enzyme::Duplicated<Vec>>(
      scaled, enzyme::Duplicated<const Vec &>(v, dv));
  check_close("primal[1]", enzyme::get<0>(pt)[1], 18.0, 1e-15);
  check_close("tangent[1]", enzyme::get<1>(pt)[1], 6.0, 1e-15);

  auto p = enzyme::autodiff<enzyme::Forward, enzyme::Const<Vec>>(
      scaled, enzyme::Duplicated<const Vec &>(v, dv));
  check_close("Const: primal[0]", enzyme::get<0>(p)[0], 2.0, 1e-15);
  return check_exit();
}
