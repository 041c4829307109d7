// std::vector::push_back in a differentiated function: growing the vector
// relocates its elements with memmove in a library function whose only
// typed access to them (getelementptr double) simplification turns into a
// byte offset; the copy's element type comes from the types noted before
// (lib/analysis/copytypes.c). With exceptions, as clang++ compiles by
// default. Both modes, against the analytic derivatives.
// RUN: %check-c %s %t -std=c++17
#include <vector>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

// sum over i < n of (x (i + 1))^2 = x^2 n (n + 1) (2n + 1) / 6
static double squares(double x, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; i++)
    v.push_back(x * (i + 1));
  double s = 0;
  for (double e : v)
    s += e * e;
  return s;
}

int main() {
  for (int n = 1; n <= 40; n += 13) {
    double x = 0.75, want = 2 * x * n * (n + 1.0) * (2.0 * n + 1) / 6;
    check_close("reverse", __enzyme_autodiff((void *)squares, enzyme_out, x, enzyme_const, n), want,
                1e-12);
    check_close("forward", __enzyme_fwddiff((void *)squares, enzyme_dup, x, 1.0, enzyme_const, n),
                want, 1e-12);
  }
  return check_exit();
}
