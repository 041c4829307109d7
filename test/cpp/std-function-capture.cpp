// A std::function holding a lambda that captures by reference. At -O0 its
// manager's copy path (never run here) moves the functor through a char
// buffer, or with memcpy into the heap when it is large: bytes nothing
// types, and Kinase refused the whole request ("it copies 8 bytes whose
// type Kinase cannot decide"). Such a copy now stops the program if it
// runs, saying why (test/cpp/std-function-copied.cpp), and the request
// compiles. With the weights Const, the closure's shadow holds a null
// shadow for the captured pointer: accesses through it read zeros and
// write nowhere (lib/core/nullshadow.c), where both modes crashed. Both
// modes, against the analytic derivatives.
// RUN: %check-c %s %t -std=c++17
#include <cmath>
#include <functional>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

// sin(a t) at t = 0.5: 0.5 cos(a / 2)
static double captured(double a) {
  std::function<double(double)> g = [&](double t) { return std::sin(a * t); };
  return g(0.5);
}

// sum_k w_k x^k with the weights captured by reference: sum_k k w_k x^(k-1)
static double polynomial(const double *w, double x) {
  double power = 1, sum = 0;
  std::function<void(int)> term = [&](int k) {
    sum += w[k] * power;
    power *= x;
  };
  for (int k = 0; k < 4; k++)
    term(k);
  return sum;
}

int main() {
  for (double a : {0.3, 1.7}) {
    check_close("captured, reverse", __enzyme_autodiff((void *)captured, a), 0.5 * std::cos(a / 2), 1e-12);
    check_close("captured, forward", __enzyme_fwddiff((void *)captured, a, 1.0), 0.5 * std::cos(a / 2),
                1e-12);
  }
  const double w[4] = {1.0, -2.0, 0.5, 3.0};
  double x = 1.3, want = w[1] + 2 * w[2] * x + 3 * w[3] * x * x;
  double dw[4] = {0}, tw[4] = {0};
  check_close("polynomial, reverse",
              __enzyme_autodiff((void *)polynomial, enzyme_dup, w, dw, enzyme_out, x), want, 1e-12);
  for (int k = 0; k < 4; k++)
    check_close("polynomial, reverse, d/dw", dw[k], std::pow(x, k), 1e-12);
  check_close("polynomial, forward",
              __enzyme_fwddiff((void *)polynomial, enzyme_dup, w, tw, enzyme_dup, x, 1.0), want, 1e-12);
  check_close("polynomial, Const weights, reverse",
              __enzyme_autodiff((void *)polynomial, enzyme_const, w, enzyme_out, x), want, 1e-12);
  check_close("polynomial, Const weights, forward",
              __enzyme_fwddiff((void *)polynomial, enzyme_const, w, enzyme_dup, x, 1.0), want, 1e-12);
  return check_exit();
}
