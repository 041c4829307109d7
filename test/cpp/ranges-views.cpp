// C++20 ranges over differentiated data: std::views::iota | transform over a
// captured pointer, transform | filter over a std::vector, std::reduce and
// std::transform_reduce, and std::ranges::sort of a dup vector. The ranges
// sort wraps its comparator and projection (std::ranges::less, std::identity:
// empty objects, one byte each) by reference in a closure that the sort
// passes beside the differentiated iterators; their addresses need shadows
// (one byte each, never read). Before, the closure was the error 'a pointer
// here may point either to memory with a shadow ... or to memory without one'.
// RUN: %check-c %s %t -std=c++20
#include <algorithm>
#include <cmath>
#include <numeric>
#include <ranges>
#include <vector>

#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
template <typename RT, typename... Args> RT __enzyme_autodiff(void *, Args...);
template <typename RT, typename... Args> RT __enzyme_fwddiff(void *, Args...);

namespace p08_ranges {
static double rsum(const double *x, int n) {
  auto sq = std::views::iota(0, n) | std::views::transform([x](int i) { return x[i] * x[i] * (i + 1); });
  double s = 0; for (double v : sq) s += v; return s;
}
static double rvec(const std::vector<double> *v) {
  auto t = *v | std::views::transform([](double a) { return std::sin(a); }) | std::views::filter([](double a) { return a > 0; });
  double s = 0; for (double e : t) s += e; return s;
}
static double red(const double *x, int n) {
  return std::reduce(x, x + n, 0.0) + std::transform_reduce(x, x + n, x, 0.0);
}
static double rng_alg(std::vector<double> *v) {
  std::ranges::sort(*v);
  auto mx = std::ranges::max(*v);
  return mx * (*v)[0];
}
static int run() {
  double x[3] = {1, 2, 3}, dx[3] = {0};
  __enzyme_autodiff<void>((void *)rsum, enzyme_dup, x, dx, enzyme_const, 3);
  for (int i = 0; i < 3; i++) check_close("iota transform", dx[i], 2 * x[i] * (i + 1), 1e-12);
  std::vector<double> v{0.5, -1.0, 2.0}, dv{0, 0, 0};
  __enzyme_autodiff<void>((void *)rvec, enzyme_dup, &v, &dv);
  check_close("filter 0", dv[0], std::cos(0.5), 1e-12);
  check_close("filter 1", dv[1], 0, 1e-12);
  check_close("filter 2", dv[2], std::cos(2.0), 1e-12);
  double d2[3] = {0};
  __enzyme_autodiff<void>((void *)red, enzyme_dup, x, d2, enzyme_const, 3);
  for (int i = 0; i < 3; i++) check_close("reduce", d2[i], 1 + 2 * x[i], 1e-12);
  double t[3] = {1, 0, 0};
  check_close("reduce fwd", __enzyme_fwddiff<double>((void *)red, enzyme_dup, x, t, enzyme_const, 3), 3, 1e-12);
  std::vector<double> w{3, 1, 2}, dw{0, 0, 0};
  __enzyme_autodiff<void>((void *)rng_alg, enzyme_dup, &w, &dw);
  // after sort w = 1 2 3, f = 3*1; each gradient lands where its value was before the sort
  check_close("ranges sort 0", dw[0], 1, 1e-12);
  check_close("ranges sort 1", dw[1], 3, 1e-12);
  check_close("ranges sort 2", dw[2], 0, 1e-12);
  return 0;
}
} // namespace p08_ranges

int main() {
  p08_ranges::run();
  return check_exit();
}
