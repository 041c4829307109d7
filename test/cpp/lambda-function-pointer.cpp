// A lambda without captures converted to a function pointer, the way a C++
// user hands one to the C ABI: `(void *)+[](double x) {...}`, or through a
// function-pointer variable. The conversion is a call of the closure's
// conversion operator, which always returns the lambda's static invoker:
// the request differentiates that function.
// RUN: %check-c %s %t -std=c++17
#include <cmath>
#include <initializer_list>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
extern "C" double __enzyme_autodiff(void *, ...);
extern "C" double __enzyme_fwddiff(void *, ...);

static double sin_cube(double x) { return std::sin(x) * x * x * x; }
static double sin_cube_dx(double x) { return std::cos(x) * x * x * x + 3 * std::sin(x) * x * x; }

int main() {
  for (double x : {-0.75, 0.5, 2.0}) {
    double d = __enzyme_autodiff((void *)+[](double y) { return std::sin(y) * y * y * y; }, x);
    check_close("+lambda, reverse", d, sin_cube_dx(x), 1e-12);
    double t = __enzyme_fwddiff((void *)+[](double y) { return std::sin(y) * y * y * y; }, x, 1.0);
    check_close("+lambda, forward", t, sin_cube_dx(x), 1e-12);

    // a pointer variable holding the converted lambda, then a parameter that
    // is Const and one that is dup
    double (*weighted)(const double *, double *) = [](const double *w, double *v) {
      return w[0] * v[0] * v[0] + w[1] * v[1];
    };
    double w[2] = {1.5, -2.0}, v[2] = {x, 3.0}, dv[2] = {0, 0};
    __enzyme_autodiff((void *)weighted, enzyme_const, w, enzyme_dup, v, dv);
    check_close("pointer variable, dv[0]", dv[0], 2 * 1.5 * x, 1e-12);
    check_close("pointer variable, dv[1]", dv[1], -2.0, 1e-12);
  }
  // the invoker is the lambda's body, as a named function would be
  check_close("same as a function", __enzyme_autodiff((void *)sin_cube, 0.3),
              __enzyme_autodiff((void *)+[](double y) { return std::sin(y) * y * y * y; }, 0.3), 0);
  return check_exit();
}
