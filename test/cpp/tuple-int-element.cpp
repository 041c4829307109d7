// A std::tuple with an int element built inside the differentiated function
// (a helper returning {mean, variance, count}, read with structured
// bindings). At -O0 std::_Head_base<int>'s constructor copies the int as
// an i32 load and store; its field is at offset 0 of its struct, so once
// instcombine folds the field's address into the struct's, nothing said
// whether the copy moved an int or a float's bits, and the derivative
// stopped at run time ("copies 4 bytes whose type Kinase cannot decide").
// The load is marked with the field's type before that (analysis/copytypes.c).
// RUN: %check-c %s %t -std=c++17
#include <cmath>
#include <numeric>
#include <tuple>
#include <vector>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static std::tuple<double, double, int> stats(const std::vector<double> &v) {
  double m = std::accumulate(v.begin(), v.end(), 0.0) / v.size();
  double var = std::inner_product(v.begin(), v.end(), v.begin(), 0.0) / v.size() - m * m;
  return {m, var, (int)v.size()};
}

static double spread(double x) {
  std::vector<double> v{x, 2 * x, std::exp(x), 1.0};
  auto [m, var, n] = stats(v);
  return m * var + n;
}

// an int and a float side by side, made with make_tuple and read with get
static double weighted(double x) {
  auto t = std::make_tuple(3, x * x, 2.5f);
  return std::get<0>(t) * std::get<1>(t) + std::get<2>(t) * x;
}

int main() {
  for (double x : {0.6, 1.7}) {
    check_both_modes(spread, x, 1e-6);
    check_both_modes(weighted, x, 1e-6);
  }
  check_close("weighted'(2)", __enzyme_autodiff((void *)weighted, 2.0), 6 * 2.0 + 2.5, 1e-12);
  return check_exit();
}
