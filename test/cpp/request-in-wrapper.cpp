// A request whose function is a parameter of the function holding it: a
// template `grad(F f, double x)` or a static function taking a function
// pointer, called with a function or a lambda converted with `+`, and a
// wrapper calling another; each is inlined into its callers, where the
// function is known (Enzyme, run after the optimiser's inlining at -O2,
// resolves these too). Before, only always_inline wrappers were, and these
// were the error "the first argument must be a function, not a computed
// pointer". Also forward-mode requests for structs returned in memory (sret).
// RUN: %check-c %s %t -std=c++17
#include <array>
#include <cmath>

#include "check.h"

extern int enzyme_dup, enzyme_out, enzyme_const;
template <typename RT, typename... Args> RT __enzyme_autodiff(void *, Args...);
template <typename RT, typename... Args> RT __enzyme_fwddiff(void *, Args...);

struct V3 {
  double x, y, z;
};
static V3 spiral(double t) { return {std::cos(t), std::sin(t), t * t}; }
static std::array<double, 3> spiral_a(double t) { return {std::cos(t), std::sin(t), t * t}; }

template <typename F> double grad(F f, double x) {
  return __enzyme_autodiff<double>((void *)f, enzyme_out, x);
}
static double deriv(double (*f)(double), double x) {
  return __enzyme_fwddiff<double>((void *)f, enzyme_dup, x, 1.0);
}
// both modes, through the two wrappers above
template <typename F> double agree(F f, double x) { return grad(f, x) - deriv(f, x); }
static double scaled(double (*f)(double, double), double x, double k) {
  return __enzyme_autodiff<double>((void *)f, enzyme_out, x, enzyme_const, k);
}

static double cube(double x) { return x * x * x; }
static double power(double x, double k) { return std::pow(x, k); }

int main() {
  double t = 0.4;
  V3 d = __enzyme_fwddiff<V3>((void *)spiral, enzyme_dup, t, 1.0);
  check_close("fwd sret struct x", d.x, -std::sin(t), 1e-12);
  check_close("fwd sret struct z", d.z, 2 * t, 1e-12);
  std::array<double, 3> da = __enzyme_fwddiff<std::array<double, 3>>((void *)spiral_a, enzyme_dup, t, 1.0);
  check_close("fwd sret array y", da[1], std::cos(t), 1e-12);
  check_close("template wrapper", grad(cube, 2.0), 12, 1e-12);
  check_close("template wrapper, lambda", grad(+[](double v) { return std::sin(v); }, 0.0), 1, 1e-12);
  check_close("static wrapper", deriv(cube, 2.0), 12, 1e-12);
  check_close("wrapper of wrappers", agree(cube, 1.5), 0, 1e-12);
  check_close("wrapper, const argument", scaled(power, 2.0, 3.0), 12, 1e-12);
  return check_exit();
}
