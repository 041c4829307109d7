// Eigen's vectorised coefficient-wise math on arrays of doubles and floats:
// exp, log, sin, cos, tanh, floor, round, ceil, pow. Eigen computes
// them with its own packet code, which rounds by adding and subtracting
// 2^52 (or 2^23) around an optimisation barrier, empty x86 assembly. As
// additions, those roundings would pass derivatives on (exp's came out 0:
// its reduced argument cancelled); Kinase reads a barrier on such a sum as
// a rounding, derivative 0, and any other barrier as nothing
// (rules/barrier.c). Against the derivatives by hand, in both modes.
// RUN: %check-c %s %t -std=c++17
#include <eigen3/Eigen/Dense>

#include "check.h"

extern "C" int enzyme_dup;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
float __enzyme_autodiff_float(void *, ...) __asm__("__enzyme_autodiff");

template <typename A> static typename A::Scalar loss(const A *a) {
  return (a->exp() + a->log() + a->sin() * a->cos() + a->tanh() + a->floor() * a->square() + a->round() +
          a->ceil() * a->abs() + a->pow(1.5))
      .sum();
}

// d loss / d a_i at x > 0
static double slope(double x) {
  return std::exp(x) + 1 / x + std::cos(2 * x) + 1 - std::tanh(x) * std::tanh(x) + std::floor(x) * 2 * x +
         std::ceil(x) + 1.5 * std::sqrt(x);
}

template <typename A> static void check(const char *what, double tol) {
  using S = typename A::Scalar;
  const int n = 9;
  A a(n), da = A::Zero(n);
  for (int i = 0; i < n; i++)
    a(i) = S(0.3 + 0.37 * i);
  if (sizeof(S) == sizeof(double))
    __enzyme_autodiff((void *)loss<A>, enzyme_dup, &a, &da);
  else
    __enzyme_autodiff_float((void *)loss<A>, enzyme_dup, &a, &da);
  for (int i = 0; i < n; i++)
    check_close(what, da(i), slope(a(i)), tol);
  if (sizeof(S) == sizeof(double)) {
    A ta = A::Zero(n);
    ta(4) = 1;
    check_close("forward", __enzyme_fwddiff((void *)loss<A>, enzyme_dup, &a, &ta), slope(a(4)), tol);
  }
}

int main() {
  check<Eigen::ArrayXd>("doubles", 1e-12);
  check<Eigen::ArrayXf>("floats", 1e-4);
  return check_exit();
}
