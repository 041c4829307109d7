// Standard containers as arguments: a std::vector<double> passed by const
// reference and Const (enzyme_const: the data points), one passed by pointer
// and duplicated (enzyme_dup: the parameters, with a shadow vector of the
// same size that receives the gradient), and a std::array<double, 3> by
// pointer, duplicated. Reverse mode accumulates into the shadow vectors;
// forward mode reads tangents from them. Against the analytic gradient.
// RUN: %check-c %s %t -std=c++17
#include <array>
#include <cmath>
#include <vector>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

// sum over the data of (p[0] + p[1] x + p[2] x^2 - y)^2 / 2, scaled by
// exp(s[0]) and shifted by s[1] * s[2]
static double loss(const std::vector<double> &xs, const std::vector<double> &ys,
                   const std::vector<double> *p, const std::array<double, 3> *s) {
  double l = 0;
  for (size_t i = 0; i < xs.size(); i++) {
    double x = xs[i];
    double r = (*p)[0] + (*p)[1] * x + (*p)[2] * x * x - ys[i];
    l += r * r / 2;
  }
  return std::exp((*s)[0]) * l + (*s)[1] * (*s)[2];
}

int main() {
  std::vector<double> xs = {-1.0, -0.5, 0.0, 0.5, 1.0, 1.5};
  std::vector<double> ys = {2.0, 1.1, 0.9, 1.2, 2.1, 3.4};
  std::vector<double> p = {0.8, 0.1, 1.1}, dp(3, 0.0);
  std::array<double, 3> s = {0.2, -0.7, 1.5}, ds = {0, 0, 0};

  double grad_x = __enzyme_autodiff((void *)loss, enzyme_const, &xs, enzyme_const, &ys, enzyme_dup, &p, &dp,
                                    enzyme_dup, &s, &ds);
  (void)grad_x;
  // The analytic gradient
  double want[3] = {0, 0, 0}, l = 0;
  for (size_t i = 0; i < xs.size(); i++) {
    double x = xs[i], r = p[0] + p[1] * x + p[2] * x * x - ys[i];
    want[0] += r;
    want[1] += r * x;
    want[2] += r * x * x;
    l += r * r / 2;
  }
  double scale = std::exp(s[0]);
  for (int k = 0; k < 3; k++)
    check_close("d loss / d p[k], into the shadow vector", dp[k], scale * want[k], 1e-12);
  check_close("d loss / d s[0], into the shadow array", ds[0], scale * l, 1e-12);
  check_close("d loss / d s[1]", ds[1], s[2], 1e-12);
  check_close("d loss / d s[2]", ds[2], s[1], 1e-12);
  check_true("the data are untouched", xs.size() == 6 && ys[5] == 3.4 && p[2] == 1.1);

  // Forward mode, direction u (in the shadows): the dot product with the
  // reverse gradient.
  std::vector<double> up = {0.3, -1.0, 0.5};
  std::array<double, 3> us = {0.25, 2.0, -0.5};
  double t = __enzyme_fwddiff((void *)loss, enzyme_const, &xs, enzyme_const, &ys, enzyme_dup, &p, &up,
                              enzyme_dup, &s, &us);
  double dot = 0;
  for (int k = 0; k < 3; k++)
    dot += dp[k] * up[k] + ds[k] * us[k];
  check_close("forward . u == reverse . u", t, dot, 1e-12);
  return check_exit();
}
