// <cmath> and <algorithm> on doubles, with the derivative at the edges:
// std::clamp, std::min and std::max (at a tie the branch the library takes:
// the first argument), std::fmax, std::pow with an int exponent (std::pow(x,
// 0) at x = 0 has derivative 0: before, 0 * pow(0, -1) gave NaN), 3-argument
// std::hypot, std::fma, long double in both modes, and cbrt, erf, expm1,
// log1p, atan2 against a central difference.
// RUN: %check-c %s %t -std=c++17
#include <algorithm>
#include <cmath>

#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
template <typename RT, typename... Args> RT __enzyme_autodiff(void *, Args...);
template <typename RT, typename... Args> RT __enzyme_fwddiff(void *, Args...);

namespace p09_math {
static double clampf(double x) { return std::clamp(x, 0.0, 1.0) * 3; }
static double minf(double a, double b) { return std::min(a, b); }
static double maxf(double a, double b) { return std::max(a, b); }
static double fmaxf_(double a, double b) { return std::fmax(a, b); }
static double powi(double x) { return std::pow(x, 3) + std::pow(x, -2) + std::pow(2.0 * x, 0); }
static double powil(double x, int n) { return std::pow(x, n); }
static double hyp3(double a, double b, double c) { return std::hypot(a, b, c); }
static double fmaf_(double a, double b, double c) { return std::fma(a, b, c) * a; }
static long double ld(long double x) { return x * x * std::sin(x) + std::exp(x) / 2; }
static double ldw(double x) { long double y = x; long double z = y * y * 3.0L + std::log(y); return (double)z; }
struct D2 { double a, b; };
struct D3 { double a, b, c; };
static double cbrtf_(double x) { return std::cbrt(x) + std::erf(x) + std::expm1(x) + std::log1p(x) + std::atan2(x, 2.0); }
static int run() {
  check_close("clamp in", __enzyme_autodiff<double>((void *)clampf, 0.5), 3, 0);
  check_close("clamp lo", __enzyme_autodiff<double>((void *)clampf, -0.5), 0, 0);
  check_close("clamp hi", __enzyme_autodiff<double>((void *)clampf, 1.5), 0, 0);
  check_close("clamp fwd", __enzyme_fwddiff<double>((void *)clampf, enzyme_dup, 0.5, 1.0), 3, 0);
  D2 m = __enzyme_autodiff<D2>((void *)minf, 1.0, 2.0);
  check_close("min a", m.a, 1, 0); check_close("min b", m.b, 0, 0);
  D2 mt = __enzyme_autodiff<D2>((void *)minf, 2.0, 2.0);
  // std::min(a,b) returns (b < a) ? b : a -> a at ties
  check_close("min tie a", mt.a, 1, 0); check_close("min tie b", mt.b, 0, 0);
  D2 xt = __enzyme_autodiff<D2>((void *)maxf, 2.0, 2.0);
  // std::max(a,b) returns (a < b) ? b : a -> a at ties
  check_close("max tie a", xt.a, 1, 0); check_close("max tie b", xt.b, 0, 0);
  D2 xm = __enzyme_autodiff<D2>((void *)maxf, 1.0, 3.0);
  check_close("max b", xm.b, 1, 0);
  D2 fm = __enzyme_autodiff<D2>((void *)fmaxf_, 1.0, 3.0);
  check_close("fmax b", fm.b, 1, 0); check_close("fmax a", fm.a, 0, 0);
  double x = 1.3;
  double w = 3 * x * x - 2 / (x * x * x);
  check_close("pow int rev", __enzyme_autodiff<double>((void *)powi, x), w, 1e-12);
  check_close("pow int fwd", __enzyme_fwddiff<double>((void *)powi, enzyme_dup, x, 1.0), w, 1e-12);
  check_close("pow var int", __enzyme_autodiff<double>((void *)powil, enzyme_out, x, enzyme_const, 4), 4 * x * x * x, 1e-12);
  check_close("pow var int 0", __enzyme_autodiff<double>((void *)powil, enzyme_out, 0.0, enzyme_const, 0), 0, 0);
  D3 h = __enzyme_autodiff<D3>((void *)hyp3, 1.0, 2.0, 2.0);
  check_close("hypot3 a", h.a, 1.0 / 3, 1e-12); check_close("hypot3 c", h.c, 2.0 / 3, 1e-12);
  check_close("hypot3 fwd", __enzyme_fwddiff<double>((void *)hyp3, enzyme_dup, 1.0, 0.0, enzyme_dup, 2.0, 1.0, enzyme_dup, 2.0, 0.0), 2.0 / 3, 1e-12);
  D3 f = __enzyme_autodiff<D3>((void *)fmaf_, 2.0, 3.0, 4.0);
  // (ab+c)a : d/da = 2ab + c, d/db = a^2, d/dc = a
  check_close("fma a", f.a, 16, 1e-12); check_close("fma b", f.b, 4, 1e-12); check_close("fma c", f.c, 2, 1e-12);
  long double lx = 0.9L;
  long double lg = __enzyme_autodiff<long double>((void *)ld, lx);
  long double lw = 2 * lx * std::sin(lx) + lx * lx * std::cos(lx) + std::exp(lx) / 2;
  check_close("long double rev", (double)lg, (double)lw, 1e-15);
  long double lt = __enzyme_fwddiff<long double>((void *)ld, enzyme_dup, lx, 1.0L);
  check_close("long double fwd", (double)lt, (double)lw, 1e-15);
  check_close("long double inside", __enzyme_autodiff<double>((void *)ldw, 1.5), 9 + 1 / 1.5, 1e-12);
  double y = 0.4;
  check_close("misc", __enzyme_autodiff<double>((void *)cbrtf_, y), central_difference(cbrtf_, y), 1e-7);
  return 0;
}
} // namespace p09_math

int main() {
  p09_math::run();
  return check_exit();
}
