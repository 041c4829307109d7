// A catch block that rethrows (`throw;`) carries nothing on into the
// differentiated code: the rethrow never returns (clang branches its
// invoke's normal edge to the unreachable block the other throws share,
// which the normal path reaches). It is differentiated, in both modes: on
// the normal path the derivative is the analytic one; on bad input the
// rethrown exception reaches the try/catch around the request, after the
// catch block's own work (a count here), with every block the derivative
// allocated released once: at the landing pad the exception first reached,
// not again at the rethrow's (which freed the tape twice before).
// RUN: %check-c %s %t -std=c++17 -I%S/include
#include <cmath>
#include <stdexcept>
#include <vector>

#include "check.h"
#include "live_blocks.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static int seen; // exceptions the catch block saw before rethrowing

__attribute__((noinline)) static double checked_sqrt(double x) {
  if (x < 0)
    throw std::domain_error("negative");
  return std::sqrt(x);
}

// x sqrt(x) + sum of x^k, k = 1..3, through a vector
static double f(double x) {
  try {
    std::vector<double> powers = {x, x * x, x * x * x};
    double s = x * checked_sqrt(x);
    for (double p : powers)
      s += p;
    return s;
  } catch (const std::domain_error &) {
    seen++;
    throw;
  }
}

static double f_dx(double x) { return 1.5 * std::sqrt(x) + 1 + 2 * x + 3 * x * x; }

int main() {
  for (double x : {0.25, 1.0, 2.5}) {
    check_close("reverse", __enzyme_autodiff((void *)f, enzyme_out, x), f_dx(x), 1e-12);
    check_close("forward", __enzyme_fwddiff((void *)f, enzyme_dup, x, 1.0), f_dx(x), 1e-12);
  }
  int caught = 0;
  long before = live_blocks;
  try {
    __enzyme_autodiff((void *)f, enzyme_out, -1.0);
  } catch (const std::domain_error &) {
    caught++;
  }
  try {
    __enzyme_fwddiff((void *)f, enzyme_dup, -1.0, 1.0);
  } catch (const std::domain_error &) {
    caught++;
  }
  check_true("both rethrown exceptions reached the caller", caught == 2);
  check_true("every allocation is released", live_blocks == before);
  check_true("the catch block ran before each rethrow", seen == 2);
  // and a derivative asked for afterwards is unaffected
  check_close("after", __enzyme_autodiff((void *)f, enzyme_out, 4.0), f_dx(4.0), 1e-12);
  return check_exit();
}
