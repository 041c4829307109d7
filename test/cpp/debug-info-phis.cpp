// Compiled with -g, where clang describes variables with debug records
// (#dbg_value) attached to instructions. A shadow or tangent of a phi is a
// phi, placed after the block's phis: it must go before the records of the
// first instruction after them, which no phi may carry (the verifier's "PHI
// Node must not have any attached DbgRecords": an internal error before).
// std::max_element's loop keeps two iterators in phis; a plain loop too.
// RUN: %check-c %s %t -std=c++17 -g
#include <algorithm>
#include <vector>

#include "check.h"

extern "C" int enzyme_dup, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static double peak(const std::vector<double> &x) { return 2 * *std::max_element(x.begin(), x.end()); }

static double powers(double x, int n) {
  double p = 1, s = 0;
  for (int i = 0; i < n; i++) {
    p *= x;
    s += p / (i + 1);
  }
  return s;
}

int main() {
  std::vector<double> x = {0.3, 2.5, -1.0, 1.5}, dx(4, 0.0), tx = {0.0, 1.0, 0.0, 0.0};
  __enzyme_autodiff((void *)peak, enzyme_dup, &x, &dx);
  for (int i = 0; i < 4; i++)
    check_close("reverse, the largest element", dx[i], i == 1 ? 2.0 : 0.0, 1e-15);
  check_close("forward, the largest element", __enzyme_fwddiff((void *)peak, enzyme_dup, &x, &tx), 2.0, 1e-15);
  // d/dx of sum over i < 5 of x^(i+1) / (i+1) = sum over i < 5 of x^i
  double want = 1 + 0.7 + 0.49 + 0.343 + 0.2401;
  check_close("reverse, a loop", __enzyme_autodiff((void *)powers, enzyme_out, 0.7, 5), want, 1e-12);
  check_close("forward, a loop", __enzyme_fwddiff((void *)powers, enzyme_dup, 0.7, 1.0, 5), want, 1e-12);
  return check_exit();
}
