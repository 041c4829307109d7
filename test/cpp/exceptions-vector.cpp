// C++ compiled with exceptions (clang++'s default): a differentiated function
// that builds a std::vector local (operator new and the constructors are
// invokes, whose landing pads destroy the vector and resume), fills it and
// sums it. Both modes, against the analytic derivatives.
// RUN: %check-c %s %t -std=c++17
#include <vector>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

// sum over i < n of (x * (i + 1))^2 = x^2 * n (n + 1) (2n + 1) / 6
static double squares(double x, int n) {
  std::vector<double> v(n);
  for (int i = 0; i < n; i++)
    v[i] = x * (i + 1);
  double s = 0;
  for (double e : v)
    s += e * e;
  return s;
}

// The vector is sized up front and read through a pointer argument.
static double scaled(const double *p, int n) {
  std::vector<double> v(n, *p);
  for (int i = 0; i < n; i++)
    v[i] *= v[i] * (i + 1);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += v[i];
  return s; // p^2 * n (n + 1) / 2
}

int main() {
  for (int n = 1; n <= 40; n += 13) {
    double x = 0.75, k = n * (n + 1.0) * (2.0 * n + 1) / 6;
    check_close("reverse squares", __enzyme_autodiff((void *)squares, enzyme_out, x, enzyme_const, n),
                2 * x * k, 1e-12);
    check_close("forward squares", __enzyme_fwddiff((void *)squares, enzyme_dup, x, 1.0, enzyme_const, n),
                2 * x * k, 1e-12);
    double p = 1.5, dp = 0, tp = 1.0;
    __enzyme_autodiff((void *)scaled, enzyme_dup, &p, &dp, enzyme_const, n);
    check_close("reverse scaled", dp, 2 * p * n * (n + 1) / 2.0, 1e-12);
    check_close("forward scaled", __enzyme_fwddiff((void *)scaled, enzyme_dup, &p, &tp, enzyme_const, n),
                2 * p * n * (n + 1) / 2.0, 1e-12);
  }
  return check_exit();
}
