// Lambdas passed to the standard algorithms over a std::vector<double>
// inside the differentiated function: std::accumulate with a capturing
// lambda, std::transform_reduce with two lambdas, std::transform into a
// local vector, and std::for_each writing through a captured reference.
// Both modes, against the analytic derivatives.
// RUN: %check-c %s %t -std=c++17
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <numeric>
#include <vector>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

// sum of w_i * sin(a x_i) over the vector, a active
static double weighted(const std::vector<double> *xs, const std::vector<double> *w, double a) {
  size_t i = 0;
  return std::accumulate(xs->begin(), xs->end(), 0.0,
                         [&](double s, double x) { return s + (*w)[i++] * std::sin(a * x); });
}

// sum of (x_i - m)^2 with the transform in one lambda, the reduction in another
static double spread(const std::vector<double> *xs, double m) {
  return std::transform_reduce(
      xs->begin(), xs->end(), 0.0, [](double s, double t) { return s + t; },
      [m](double x) { return (x - m) * (x - m); });
}

// the squares into a local vector, then a for_each summing exp of them
static double squares_then_exp(const std::vector<double> *xs) {
  std::vector<double> sq(xs->size());
  std::transform(xs->begin(), xs->end(), sq.begin(), [](double x) { return x * x; });
  double s = 0;
  std::for_each(sq.begin(), sq.end(), [&s](double v) { s += std::exp(-v); });
  return s;
}

int main() {
  std::vector<double> xs = {0.5, -1.0, 2.0, 0.25};
  std::vector<double> w = {1.0, 0.5, -2.0, 3.0};
  for (double a : {0.3, 1.7}) {
    double g = __enzyme_autodiff((void *)weighted, enzyme_const, &xs, enzyme_const, &w, enzyme_out, a);
    double t = __enzyme_fwddiff((void *)weighted, enzyme_const, &xs, enzyme_const, &w, enzyme_dup, a, 1.0);
    double want = 0;
    for (size_t i = 0; i < xs.size(); i++)
      want += w[i] * xs[i] * std::cos(a * xs[i]);
    check_close("accumulate, reverse", g, want, 1e-12);
    check_close("accumulate, forward", t, want, 1e-12);
  }
  double m = 0.4;
  double gm = __enzyme_autodiff((void *)spread, enzyme_const, &xs, enzyme_out, m);
  double want_m = 0;
  for (double x : xs)
    want_m += -2 * (x - m);
  check_close("transform_reduce, d/dm", gm, want_m, 1e-12);
  std::vector<double> dxs(xs.size(), 0.0);
  __enzyme_autodiff((void *)spread, enzyme_dup, &xs, &dxs, enzyme_const, m);
  for (size_t i = 0; i < xs.size(); i++)
    check_close("transform_reduce, d/dx_i", dxs[i], 2 * (xs[i] - m), 1e-12);

  std::vector<double> dsq(xs.size(), 0.0), u = {1.0, -0.5, 0.25, 2.0};
  __enzyme_autodiff((void *)squares_then_exp, enzyme_dup, &xs, &dsq);
  double tsq = __enzyme_fwddiff((void *)squares_then_exp, enzyme_dup, &xs, &u);
  double dot = 0;
  for (size_t i = 0; i < xs.size(); i++) {
    check_close("transform and for_each, d/dx_i", dsq[i], -2 * xs[i] * std::exp(-xs[i] * xs[i]), 1e-12);
    dot += dsq[i] * u[i];
  }
  check_close("transform and for_each, forward . u", tsq, dot, 1e-12);
  return check_exit();
}
