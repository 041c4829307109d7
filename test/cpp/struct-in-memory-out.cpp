// Structs of doubles too large for registers, passed by value in memory
// (byval): struct {double x, y, z;}, std::array<double, 3>, a struct nesting
// one; marked enzyme_out or unmarked, each one's gradient comes back as a
// struct of its type, in parameter order beside scalar ones, through the
// template declaration C++ programs use. The callee may modify its copy; the
// caller's stays as it was. Before, the error "is enzyme_out but is not a
// floating-point value".
// RUN: %check-c %s %t -std=c++17
#include <array>
#include <cmath>

#include "check.h"

extern int enzyme_out, enzyme_const;
template <typename RT, typename... Args> RT __enzyme_autodiff(void *, Args...);
struct V3 { double x, y, z; };
struct P { V3 a; double w; };
static double norm3(V3 v) { return std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z); }
static double arrsum(std::array<double, 3> a) { return a[0] * a[1] * a[2]; }
static double mixed(double s, V3 v, std::array<double, 3> a, int k) { return s * (v.x * a[0] + v.y * a[1] + v.z * a[2]) * k; }
static double nested(P p) { return p.a.x * p.w + p.a.z * p.a.z; }
static double modifies(V3 v) { v.x *= v.x; return v.x + v.y; }
struct R1 { double s; V3 v; std::array<double, 3> a; };
int main() {
  V3 w{1, 2, 2};
  V3 gw = __enzyme_autodiff<V3>((void *)norm3, enzyme_out, w);
  check_close("V3 out x", gw.x, 1.0 / 3, 1e-12);
  check_close("V3 out z", gw.z, 2.0 / 3, 1e-12);
  V3 gu = __enzyme_autodiff<V3>((void *)norm3, w);
  check_close("V3 unmarked y", gu.y, 2.0 / 3, 1e-12);
  std::array<double, 3> a{2, 3, 4};
  std::array<double, 3> ga = __enzyme_autodiff<std::array<double, 3>>((void *)arrsum, enzyme_out, a);
  check_close("arr out 0", ga[0], 12, 1e-12);
  check_close("arr out 2", ga[2], 6, 1e-12);
  R1 r = __enzyme_autodiff<R1>((void *)mixed, enzyme_out, 2.0, enzyme_out, w, enzyme_out, a, enzyme_const, 3);
  check_close("mixed s", r.s, 3 * (2 + 6 + 8), 1e-12);
  check_close("mixed v.y", r.v.y, 2 * 3 * 3, 1e-12);
  check_close("mixed a[2]", r.a[2], 2 * 2 * 3, 1e-12);
  P p{{1, 2, 3}, 4};
  P gp = __enzyme_autodiff<P>((void *)nested, p);
  check_close("nested a.x", gp.a.x, 4, 1e-12);
  check_close("nested a.z", gp.a.z, 6, 1e-12);
  check_close("nested w", gp.w, 1, 1e-12);
  V3 gm = __enzyme_autodiff<V3>((void *)modifies, w);
  check_close("modifies x", gm.x, 2, 1e-12);
  check_close("modifies y", gm.y, 1, 1e-12);
  check_close("primal untouched", w.x, 1, 0);
  return check_exit();
}
