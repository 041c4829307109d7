// Standard library types around differentiated code (all passed before this
// round; kept as coverage): std::span over a pointer and over a dup vector,
// std::optional, std::variant with std::visit (local, and dup with a shadow
// variant), a CRTP expression-template Vec3 with a Mat3, constexpr tables, a
// Const std::map and std::unordered_map with std::string keys used only for
// lookup, std::vector<std::vector<double>> (dup, and built locally), and a
// std::deque filled at both ends.
// RUN: %check-c %s %t -std=c++20
#include <array>
#include <cmath>
#include <cstddef>
#include <deque>
#include <map>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
template <typename RT, typename... Args> RT __enzyme_autodiff(void *, Args...);
template <typename RT, typename... Args> RT __enzyme_fwddiff(void *, Args...);

namespace p05_modern {
static double span_sum(std::span<const double> s) { double a = 0; for (double v : s) a += v * v; return a; }
static double use_span(const double *x, int n) { return span_sum(std::span<const double>(x, n)) + std::accumulate(x, x + n, 0.0); }
static std::optional<double> safe_log(double x) { if (x <= 0) return std::nullopt; return std::log(x); }
static double use_opt(double x) { auto l = safe_log(x); auto m = safe_log(-x); return l.value_or(0.0) * x + m.value_or(1.0) * x; }
struct Circle { double r; };
struct Square { double s; };
using Shape = std::variant<Circle, Square>;
static double area(const Shape &sh) {
  return std::visit([](auto &&v) -> double {
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<T, Circle>) return 3.0 * v.r * v.r;
    else return v.s * v.s;
  }, sh);
}
static double use_variant(double x) {
  Shape a = Circle{x}, b = Square{2 * x};
  return area(a) + area(b);
}
static double variant_dup(const Shape *s) { return area(*s) * 2; }
static double vec_span(std::vector<double> *v) { std::span<double> s(*v); for (auto &e : s) e = e * e; return std::accumulate(s.begin(), s.end(), 0.0); }
static int run() {
  double x[3] = {1, 2, 3}, dx[3] = {0};
  __enzyme_autodiff<void>((void *)use_span, enzyme_dup, x, dx, enzyme_const, 3);
  for (int i = 0; i < 3; i++) check_close("span", dx[i], 2 * x[i] + 1, 1e-12);
  double t = 1.7;
  check_close("optional rev", __enzyme_autodiff<double>((void *)use_opt, t), std::log(t) + 1 + 1, 1e-12);
  check_close("optional fwd", __enzyme_fwddiff<double>((void *)use_opt, enzyme_dup, t, 1.0), std::log(t) + 2, 1e-12);
  check_close("variant rev", __enzyme_autodiff<double>((void *)use_variant, t), 6 * t + 8 * t, 1e-12);
  check_close("variant fwd", __enzyme_fwddiff<double>((void *)use_variant, enzyme_dup, t, 1.0), 14 * t, 1e-12);
  Shape s = Square{1.5}, ds = Square{0.0};
  __enzyme_autodiff<void>((void *)variant_dup, enzyme_dup, &s, &ds);
  check_close("variant dup", std::get<Square>(ds).s, 6.0, 1e-12);
  std::vector<double> v{1, 2, 3}, dv{0, 0, 0};
  __enzyme_autodiff<void>((void *)vec_span, enzyme_dup, &v, &dv);
  check_close("vec span", dv[1], 4.0, 1e-12);
  return 0;
}
} // namespace p05_modern

namespace p06_expr {
template <typename E> struct VecExpr {
  double operator[](std::size_t i) const { return static_cast<const E &>(*this)[i]; }
};
struct Vec3 : VecExpr<Vec3> {
  double d[3];
  Vec3() : d{0, 0, 0} {}
  Vec3(double a, double b, double c) : d{a, b, c} {}
  template <typename E> Vec3(const VecExpr<E> &e) { for (int i = 0; i < 3; i++) d[i] = e[i]; }
  double operator[](std::size_t i) const { return d[i]; }
  double &operator[](std::size_t i) { return d[i]; }
};
template <typename L, typename R> struct Add : VecExpr<Add<L, R>> {
  const L &l; const R &r;
  Add(const L &l, const R &r) : l(l), r(r) {}
  double operator[](std::size_t i) const { return l[i] + r[i]; }
};
template <typename L, typename R> struct Mul : VecExpr<Mul<L, R>> {
  const L &l; const R &r;
  Mul(const L &l, const R &r) : l(l), r(r) {}
  double operator[](std::size_t i) const { return l[i] * r[i]; }
};
template <typename E> struct Scale : VecExpr<Scale<E>> {
  double s; const E &e;
  Scale(double s, const E &e) : s(s), e(e) {}
  double operator[](std::size_t i) const { return s * e[i]; }
};
template <typename L, typename R> Add<L, R> operator+(const VecExpr<L> &l, const VecExpr<R> &r) { return {static_cast<const L &>(l), static_cast<const R &>(r)}; }
template <typename L, typename R> Mul<L, R> operator*(const VecExpr<L> &l, const VecExpr<R> &r) { return {static_cast<const L &>(l), static_cast<const R &>(r)}; }
template <typename E> Scale<E> operator*(double s, const VecExpr<E> &e) { return {s, static_cast<const E &>(e)}; }
struct Mat3 {
  double m[3][3];
  template <typename E> Vec3 apply(const VecExpr<E> &v) const {
    Vec3 r; for (int i = 0; i < 3; i++) { double s = 0; for (int j = 0; j < 3; j++) s += m[i][j] * v[j]; r[i] = s; } return r;
  }
};
static double dot(const Vec3 &a, const Vec3 &b) { double s = 0; for (int i = 0; i < 3; i++) s += a[i] * b[i]; return s; }
static double energy(const Vec3 *x, const Mat3 *A, double k) {
  Vec3 y = *x + k * (*x * *x);
  Vec3 z = A->apply(y + *x);
  return dot(z, y);
}
static double energy_s(double a, double b, double c) { Vec3 x(a, b, c); Mat3 A{{{1, 2, 0}, {0, 1, 3}, {1, 0, 1}}}; return energy(&x, &A, 0.5); }
static double e1(double a) { return energy_s(a, 2.0, -1.0); }
static int run() {
  Vec3 x(1.0, 2.0, -1.0), dx;
  Mat3 A{{{1, 2, 0}, {0, 1, 3}, {1, 0, 1}}};
  double dk = __enzyme_autodiff<double>((void *)energy, enzyme_dup, &x, &dx, enzyme_const, &A, enzyme_out, 0.5);
  double fd = central_difference(e1, 1.0);
  check_close("expr dx0", dx[0], fd, 1e-6);
  Vec3 tx(1, 0, 0);
  double t = __enzyme_fwddiff<double>((void *)energy, enzyme_dup, &x, &tx, enzyme_const, &A, enzyme_dup, 0.5, 0.0);
  check_close("expr fwd", t, fd, 1e-6);
  (void)dk;
  return 0;
}
} // namespace p06_expr

namespace p07_containers {
constexpr std::array<double, 4> coeffs = {1.0, -0.5, 0.25, 2.0};
constexpr double table[3][2] = {{1, 2}, {3, 4}, {5, 6}};
static double horner(double x) { double s = 0; for (int i = 3; i >= 0; i--) s = s * x + coeffs[i]; return s + table[2][1] * x; }
static double named(const std::map<std::string, double> &p, double x) { return p.at("alpha") * x * x + p.at("beta") * x; }
static double named_wrap(const std::map<std::string, double> *p, double x) { return named(*p, x); }
static double hashed(const std::unordered_map<std::string, double> *p, double x) { return p->at("k") * std::sin(x); }
static double vv(const std::vector<std::vector<double>> *m, const std::vector<double> *x) {
  double s = 0;
  for (size_t i = 0; i < m->size(); i++) { double r = 0; for (size_t j = 0; j < (*m)[i].size(); j++) r += (*m)[i][j] * (*x)[j]; s += r * r; }
  return s;
}
static double vv_local(const double *x, int n) {
  std::vector<std::vector<double>> g(n, std::vector<double>(n));
  for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) g[i][j] = x[i] * x[j];
  double s = 0; for (auto &row : g) for (double v : row) s += v; return s;
}
static double dq(const double *x, int n) {
  std::deque<double> d;
  for (int i = 0; i < n; i++) { if (i % 2) d.push_back(x[i] * x[i]); else d.push_front(std::exp(x[i])); }
  double s = 0; while (!d.empty()) { s += d.front() * (d.size()); d.pop_front(); }
  return s;
}
static int run() {
  double x = 1.2;
  double w = -0.5 + 0.5 * x + 6 * x * x + 6;
  check_close("constexpr rev", __enzyme_autodiff<double>((void *)horner, x), w, 1e-12);
  check_close("constexpr fwd", __enzyme_fwddiff<double>((void *)horner, enzyme_dup, x, 1.0), w, 1e-12);
  std::map<std::string, double> p{{"alpha", 2.0}, {"beta", 3.0}};
  check_close("string map", __enzyme_autodiff<double>((void *)named_wrap, enzyme_const, &p, enzyme_out, x), 4 * x + 3, 1e-12);
  std::unordered_map<std::string, double> h{{"k", 2.5}, {"z", 1.0}};
  check_close("string hash", __enzyme_autodiff<double>((void *)hashed, enzyme_const, &h, enzyme_out, x), 2.5 * std::cos(x), 1e-12);
  check_close("string hash fwd", __enzyme_fwddiff<double>((void *)hashed, enzyme_const, &h, enzyme_dup, x, 1.0), 2.5 * std::cos(x), 1e-12);
  std::vector<std::vector<double>> m{{1, 2}, {3, 4}, {5, 6}}, dm{{0, 0}, {0, 0}, {0, 0}};
  std::vector<double> xv{1, -1}, dxv{0, 0};
  __enzyme_autodiff<void>((void *)vv, enzyme_dup, &m, &dm, enzyme_dup, &xv, &dxv);
  // r = (-1, -1, -1); ds/dm_ij = 2 r_i x_j ; ds/dx_j = sum 2 r_i m_ij
  check_close("vv dm00", dm[0][0], -2, 1e-12);
  check_close("vv dm21", dm[2][1], 2, 1e-12);
  check_close("vv dx0", dxv[0], -2 * 9, 1e-12);
  check_close("vv dx1", dxv[1], -2 * 12, 1e-12);
  double xs[3] = {0.5, 1.5, -1}, dxs[3] = {0};
  __enzyme_autodiff<void>((void *)vv_local, enzyme_dup, xs, dxs, enzyme_const, 3);
  for (int i = 0; i < 3; i++) check_close("vv local", dxs[i], 2 * (0.5 + 1.5 - 1), 1e-12);
  double xd[4] = {0.1, 0.2, 0.3, 0.4}, dxd[4] = {0};
  __enzyme_autodiff<void>((void *)dq, enzyme_dup, xd, dxd, enzyme_const, 4);
  // order: front: e(x2) e(x0) x1^2 x3^2 -> weights 4 3 2 1
  check_close("deque 0", dxd[0], 3 * std::exp(0.1), 1e-12);
  check_close("deque 1", dxd[1], 2 * 2 * 0.2, 1e-12);
  check_close("deque 2", dxd[2], 4 * std::exp(0.3), 1e-12);
  check_close("deque 3", dxd[3], 1 * 2 * 0.4, 1e-12);
  return 0;
}
} // namespace p07_containers

int main() {
  p05_modern::run();
  p06_expr::run();
  p07_containers::run();
  return check_exit();
}
