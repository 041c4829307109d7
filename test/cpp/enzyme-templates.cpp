// The Enzyme ABI as C++ programs declare it, template <typename RT, typename...
// Args> RT __enzyme_autodiff(void *, Args...): __enzyme_autodiff<double>,
// <void> and <struct> of static member functions and lambdas (+[](double)),
// __enzyme_fwddiff<void> with enzyme_dupnoneed; member functions through free
// wrappers taking const Obj & (enzyme_const) or Obj * (enzyme_dup with a shadow
// object), in both modes; structs and std::array returned by value, std::pair
// and std::tuple with structured bindings and std::tie; forward over reverse
// and reverse over reverse; __enzyme_augmentfwd and __enzyme_reverse once per
// seed, with a seed for an active result and a {tape, result} struct; and
// registered derivatives (__enzyme_register_derivative_*, _gradient_*) called
// from a member function.
// RUN: %check-c %s %t -std=c++17
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <tuple>
#include <utility>

#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
template <typename RT, typename... Args> RT __enzyme_autodiff(void *, Args...);
template <typename RT, typename... Args> RT __enzyme_fwddiff(void *, Args...);

namespace p01_basic {
struct Phys { static double energy(double x) { return 0.5 * x * x * x + std::sin(x); } };
static double sq3(double x, double y) { return x * x * y + y * y * y; }
static void vecf(const double *x, double *out) { out[0] = x[0] * x[1]; out[1] = std::exp(x[0]); }
struct G { double a, b; };
static int run() {
  double x = 1.3;
  double g = __enzyme_autodiff<double>((void *)Phys::energy, enzyme_out, x);
  check_close("static member rev", g, 1.5 * x * x + std::cos(x), 1e-12);
  double t = __enzyme_fwddiff<double>((void *)Phys::energy, enzyme_dup, x, 1.0);
  check_close("static member fwd", t, 1.5 * x * x + std::cos(x), 1e-12);
  auto lam = +[](double v) { return v * std::log(v); };
  check_close("lambda rev", __enzyme_autodiff<double>((void *)lam, x), std::log(x) + 1, 1e-12);
  check_close("lambda inline rev", __enzyme_autodiff<double>((void *)+[](double v) { return std::tanh(v) * v; }, x),
              std::tanh(x) + x * (1 - std::tanh(x) * std::tanh(x)), 1e-12);
  check_close("lambda fwd", __enzyme_fwddiff<double>((void *)lam, enzyme_dup, x, 2.0), 2 * (std::log(x) + 1), 1e-12);

  G r = __enzyme_autodiff<G>((void *)sq3, enzyme_out, 2.0, enzyme_out, 3.0);
  check_close("two outs a", r.a, 12, 1e-12);
  check_close("two outs b", r.b, 4 + 27, 1e-12);
  double y = 3.0;
  G r2 = __enzyme_autodiff<G>((void *)sq3, 2.0, y);
  check_close("unmarked outs", r2.b, 31, 1e-12);
  double xi[2] = {1.5, 2.0}, dxi[2] = {0, 0}, o[2], dout[2] = {1, 1};
  __enzyme_autodiff<void>((void *)vecf, enzyme_dup, xi, dxi, enzyme_dupnoneed, o, dout);
  check_close("void dup 0", dxi[0], 2.0 + std::exp(1.5), 1e-12);
  check_close("void dup 1", dxi[1], 1.5, 1e-12);
  check_close("dout zero", dout[0] + dout[1], 0, 0);
  double tx[2] = {1, 0}, tout[2];
  __enzyme_fwddiff<void>((void *)vecf, enzyme_dup, xi, tx, enzyme_dupnoneed, o, tout);
  check_close("fwd void 0", tout[0], 2.0, 1e-12);
  check_close("fwd void 1", tout[1], std::exp(1.5), 1e-12);
  return 0;
}
} // namespace p01_basic

namespace p02_members {
class Spring {
public:
  double k, rest;
  Spring(double k, double r) : k(k), rest(r) {}
  double energy(double x) const { double d = x - rest; return 0.5 * k * d * d; }
  void scale(double s) { k *= s; }
};
static double energy_const(const Spring &s, double x) { return s.energy(x); }
static double energy_ptr(Spring *s, double x) { return s->energy(x) * s->rest; }
static double energy_mut(Spring *s, double x) { s->scale(x); return s->k * s->k; }
struct Poly {
  double c[3];
  double operator()(double x) const { return c[0] + x * (c[1] + x * c[2]); }
  double eval(double x) const { return (*this)(x); }
};
static double poly_eval(const Poly *p, double x) { return p->eval(x); }
static int run() {
  Spring s(3.0, 0.5);
  double x = 2.0;
  double g = __enzyme_autodiff<double>((void *)energy_const, enzyme_const, &s, enzyme_out, x);
  check_close("const ref", g, 3.0 * 1.5, 1e-12);
  Spring ds(0, 0);
  double gx = __enzyme_autodiff<double>((void *)energy_ptr, enzyme_dup, &s, &ds, enzyme_out, x);
  // f = 0.5 k (x-r)^2 r ; df/dk = 0.5 (x-r)^2 r; df/dr = -k(x-r) r + 0.5 k (x-r)^2
  check_close("ptr dx", gx, 3.0 * 1.5 * 0.5, 1e-12);
  check_close("ptr dk", ds.k, 0.5 * 2.25 * 0.5, 1e-12);
  check_close("ptr drest", ds.rest, -3.0 * 1.5 * 0.5 + 0.5 * 3.0 * 2.25, 1e-12);
  Spring s2(3.0, 0.5), ds2(0, 0);
  double gm = __enzyme_autodiff<double>((void *)energy_mut, enzyme_dup, &s2, &ds2, enzyme_out, x);
  // f = (k x)^2 ; df/dx = 2 k^2 x ; df/dk = 2 k x^2
  check_close("mut dx", gm, 2 * 9 * 2, 1e-12);
  check_close("mut dk", ds2.k, 2 * 3 * 4, 1e-12);
  Poly p{{1, 2, 3}}, dp{{0, 0, 0}};
  double gp = __enzyme_autodiff<double>((void *)poly_eval, enzyme_dup, &p, &dp, enzyme_out, x);
  check_close("poly dx", gp, 2 + 2 * 3 * x, 1e-12);
  check_close("poly dc2", dp.c[2], x * x, 1e-12);
  // forward mode through a member function
  Spring ts(1.0, 0.0);
  double t = __enzyme_fwddiff<double>((void *)energy_ptr, enzyme_dup, &s, &ts, enzyme_dup, x, 0.0);
  // tangent in k=1, rest=0: df/dk + df/dr
  check_close("fwd member", t, 0.5 * 2.25 * 0.5, 1e-12);
  double t2 = __enzyme_fwddiff<double>((void *)energy_const, enzyme_const, &s, enzyme_dup, x, 1.0);
  check_close("fwd const ref", t2, 4.5, 1e-12);
  Poly tp{{0, 0, 1}};
  check_close("fwd poly", __enzyme_fwddiff<double>((void *)poly_eval, enzyme_dup, &p, &tp, enzyme_dup, x, 1.0), 2 + 6 * x + x * x, 1e-12);
  return 0;
}
} // namespace p02_members

namespace p03_struct_ret {
struct V2 { double x, y; };
struct V3 { double x, y, z; };
static double normsq2(V2 v) { return v.x * v.x + 3 * v.y * v.y; }
static double norm3(V3 v) { return std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z); }
static double arrsum(std::array<double, 3> a) { return a[0] * a[1] * a[2]; }
static V2 rot(double t) { return {std::cos(t), std::sin(t)}; }
static double use_rot(double t) { V2 v = rot(t); return v.x * 2 + v.y * 5; }
static std::array<double, 2> arrret(double t) { return {t * t, std::exp(t)}; }
static double use_arr(double t) { auto a = arrret(t); return a[0] + a[1]; }
static int run() {
  V2 v{1.5, 2.0};
  V2 g = __enzyme_autodiff<V2>((void *)normsq2, enzyme_out, v);
  check_close("V2 out x", g.x, 3.0, 1e-12);
  check_close("V2 out y", g.y, 12.0, 1e-12);
  V3 w{1, 2, 2};
  check_close("V3 fwd", __enzyme_fwddiff<double>((void *)norm3, enzyme_dup, w, V3{1, 0, 0}), 1.0 / 3, 1e-12);
  std::array<double, 3> a{2, 3, 4};
  check_close("array fwd", __enzyme_fwddiff<double>((void *)arrsum, enzyme_dup, a, std::array<double, 3>{0, 0, 1}), 6, 1e-12);
  double t = 0.7;
  check_close("struct ret inner", __enzyme_autodiff<double>((void *)use_rot, t), -2 * std::sin(t) + 5 * std::cos(t), 1e-12);
  check_close("array ret inner", __enzyme_autodiff<double>((void *)use_arr, t), 2 * t + std::exp(t), 1e-12);
  V2 tr = __enzyme_fwddiff<V2>((void *)rot, enzyme_dup, t, 1.0);
  check_close("fwd struct ret x", tr.x, -std::sin(t), 1e-12);
  check_close("fwd struct ret y", tr.y, std::cos(t), 1e-12);
  std::array<double, 2> ta = __enzyme_fwddiff<std::array<double, 2>>((void *)arrret, enzyme_dup, t, 1.0);
  check_close("fwd array ret 0", ta[0], 2 * t, 1e-12);
  check_close("fwd array ret 1", ta[1], std::exp(t), 1e-12);
  return 0;
}
} // namespace p03_struct_ret

namespace p04_tuple {
static std::pair<double, double> polar(double r, double t) { return {r * std::cos(t), r * std::sin(t)}; }
static std::tuple<double, int, double> stats(const double *x, int n) {
  double s = 0, q = 0;
  for (int i = 0; i < n; i++) { s += x[i]; q += x[i] * x[i]; }
  return {s / n, n, q / n};
}
static double var(const double *x, int n) {
  auto [mean, cnt, msq] = stats(x, n);
  std::printf("mean %g count %d\n", mean, cnt);
  std::cout << "msq " << msq << "\n";
  return msq - mean * mean;
}
static double usepolar(double r, double t) {
  auto [a, b] = polar(r, t);
  return a * b;
}
static double tie_use(double x) {
  double a, b;
  std::tie(a, b) = polar(x, x);
  auto t = std::make_tuple(a, b, x);
  return std::get<0>(t) + std::get<1>(t) * std::get<2>(t);
}
struct PP { double a, b; };
static int run() {
  double x[4] = {1, 2, 4, 7}, dx[4] = {0};
  __enzyme_autodiff<void>((void *)var, enzyme_dup, x, dx, enzyme_const, 4);
  double mean = 3.5;
  for (int i = 0; i < 4; i++) check_close("var grad", dx[i], 2 * x[i] / 4 - 2 * mean / 4, 1e-12);
  double r = 2, t = 0.3;
  PP g = __enzyme_autodiff<PP>((void *)usepolar, r, t);
  // f = r^2 cos sin = r^2 sin(2t)/2
  check_close("pair r", g.a, r * std::sin(2 * t), 1e-12);
  check_close("pair t", g.b, r * r * std::cos(2 * t), 1e-12);
  double y = 0.8;
  double want = -std::sin(y) * y + std::cos(y) + (std::sin(y) + y * std::cos(y)) * y * y + y * std::sin(y) * 2 * y;
  // tie_use = x cos x + x sin x * x = x cos x + x^2 sin x
  want = std::cos(y) - y * std::sin(y) + 2 * y * std::sin(y) + y * y * std::cos(y);
  check_close("tie rev", __enzyme_autodiff<double>((void *)tie_use, y), want, 1e-12);
  check_close("tie fwd", __enzyme_fwddiff<double>((void *)tie_use, enzyme_dup, y, 1.0), want, 1e-12);
  std::pair<double, double> tp = __enzyme_fwddiff<std::pair<double, double>>((void *)polar, enzyme_dup, r, 0.0, enzyme_dup, t, 1.0);
  check_close("fwd pair ret first", tp.first, -r * std::sin(t), 1e-12);
  check_close("fwd pair ret second", tp.second, r * std::cos(t), 1e-12);
  return 0;
}
} // namespace p04_tuple

extern int enzyme_allocated, enzyme_tape;
template <typename RT, typename... Args> RT __enzyme_augmentfwd(void *, Args...);
template <typename RT, typename... Args> RT __enzyme_reverse(void *, Args...);
namespace p10_modes {
static double cube(double x) { return x * x * x + std::sin(x); }
static double grad_cube(double x) { return __enzyme_autodiff<double>((void *)cube, enzyme_out, x); }
static double f2(double x, double y) { return x * x * y + std::exp(x * y); }
struct D2 { double a, b; };
static double gx(double x, double y) { return __enzyme_autodiff<D2>((void *)f2, x, y).a; }
static void vec(const double *x, double *y, int n) { for (int i = 0; i < n; i++) y[i] = x[i] * x[i] * std::sin(x[(i + 1) % n]); }
static double sumsq(const double *x, int n) { double s = 0; for (int i = 0; i < n; i++) s += x[i] * x[i] * x[i]; return s; }
struct Particle { double pos, vel; };
static double ke(const Particle *p, double m) { return 0.5 * m * p->vel * p->vel + p->pos; }
static double ke_dnn(Particle *p, Particle *out, double m) { out->pos = p->pos * m; out->vel = p->vel * p->vel; return 0; }
struct TR { void *tape; double r; };
static int run() {
  double x = 0.7;
  // forward over reverse: second derivative
  double h = __enzyme_fwddiff<double>((void *)grad_cube, enzyme_dup, x, 1.0);
  check_close("fwd of rev", h, 6 * x - std::sin(x), 1e-12);
  // reverse over reverse
  double h2 = __enzyme_autodiff<double>((void *)grad_cube, enzyme_out, x);
  check_close("rev of rev", h2, 6 * x - std::sin(x), 1e-12);
  double y = 1.1;
  double hxy = __enzyme_fwddiff<double>((void *)gx, enzyme_dup, x, 0.0, enzyme_dup, y, 1.0);
  // d/dy (2xy + y e^{xy}) = 2x + e^{xy} + xy e^{xy}
  check_close("mixed partial", hxy, 2 * x + std::exp(x * y) * (1 + x * y), 1e-12);
  // split mode: tape reused? one augmented pass per seed
  const int n = 3;
  double xs[n] = {0.5, 1.0, 1.5}, ys[n], dys[n];
  for (int seed = 0; seed < n; seed++) {
    double dxs[n] = {0, 0, 0};
    for (int k = 0; k < n; k++) dys[k] = k == seed;
    void *tape = __enzyme_augmentfwd<void *>((void *)vec, enzyme_dup, xs, dxs, enzyme_dup, ys, dys, enzyme_const, n);
    __enzyme_reverse<void>((void *)vec, enzyme_dup, xs, dxs, enzyme_dup, ys, dys, enzyme_const, n, tape);
    int j = (seed + 1) % n;
    check_close("split jac diag", dxs[seed], 2 * xs[seed] * std::sin(xs[j]), 1e-12);
    check_close("split jac off", dxs[j], xs[seed] * xs[seed] * std::cos(xs[j]), 1e-12);
    check_close("split y", ys[seed], xs[seed] * xs[seed] * std::sin(xs[j]), 1e-12);
  }
  // split mode with an active return and a seed
  double ds[n] = {0};
  void *tape = __enzyme_augmentfwd<void *>((void *)sumsq, enzyme_dup, xs, ds, enzyme_const, n);
  __enzyme_reverse<void>((void *)sumsq, enzyme_dup, xs, ds, enzyme_const, n, 2.0, tape);
  for (int i = 0; i < n; i++) check_close("split seed", ds[i], 6 * xs[i] * xs[i], 1e-12);
  // struct-returning augmented forward: {tape, result}

  double ds2[n] = {0};
  TR tr = __enzyme_augmentfwd<TR>((void *)sumsq, enzyme_dup, xs, ds2, enzyme_const, n);
  check_close("aug result", tr.r, 0.125 + 1 + 3.375, 1e-12);
  __enzyme_reverse<void>((void *)sumsq, enzyme_dup, xs, ds2, enzyme_const, n, 1.0, tr.tape);
  check_close("aug tr seed", ds2[2], 3 * 2.25, 1e-12);
  // dupnoneed in C++ with a struct
  Particle p{2.0, 3.0}, dp{0, 0};
  double gm = __enzyme_autodiff<double>((void *)ke, enzyme_dup, &p, &dp, enzyme_out, 4.0);
  check_close("ke dm", gm, 4.5, 1e-12);
  check_close("ke dvel", dp.vel, 12, 1e-12);
  check_close("ke dpos", dp.pos, 1, 1e-12);
  Particle q{2.0, 3.0}, dq{0, 0}, o, dout{1.0, 1.0};
  double gm2 = __enzyme_autodiff<double>((void *)ke_dnn, enzyme_dup, &q, &dq, enzyme_dupnoneed, &o, &dout, enzyme_out, 4.0);
  check_close("dnn dm", gm2, 2, 1e-12);
  check_close("dnn dpos", dq.pos, 4, 1e-12);
  check_close("dnn dvel", dq.vel, 6, 1e-12);
  return 0;
}
} // namespace p10_modes

// registrations are globals of C names: outside any namespace
static int calls_fwd = 0, calls_rev = 0;
__attribute__((noinline)) static double mysq(double x) { return x * x; }
static double mysq_fwd(double x, double dx) { calls_fwd++; return 2 * x * dx * 10; }
void *__enzyme_register_derivative_mysq[] = {(void *)mysq, (void *)mysq_fwd};
__attribute__((noinline)) static double mylog(double x) { return std::log(x); }
static void *mylog_aug(double x) { return nullptr; }
struct G1 { double d; };
static G1 mylog_rev(double x, double seed, void *tape) { calls_rev++; return {seed / x * 100}; }
void *__enzyme_register_gradient_mylog[] = {(void *)mylog, (void *)mylog_aug, (void *)mylog_rev};
static double use(double x) { return mysq(x) + 1; }
static double usel(double x) { return mylog(x) * 2; }
namespace ns { struct Model { double a; double f(double x) const { return a * mylog(x); } }; }
static double usem(const ns::Model *m, double x) { return m->f(x); }
static int custom_run() {
  double x = 1.5;
  check_close("custom fwd", __enzyme_fwddiff<double>((void *)use, enzyme_dup, x, 1.0), 20 * x, 1e-12);
  check_close("custom fwd called", calls_fwd, 1, 0);
  check_close("custom rev", __enzyme_autodiff<double>((void *)usel, x), 200 / x, 1e-12);
  check_close("custom rev called", calls_rev, 1, 0);
  ns::Model m{3.0};
  check_close("custom in member", __enzyme_autodiff<double>((void *)usem, enzyme_const, &m, enzyme_out, x), 300 / x, 1e-12);
  return 0;
}

int main() {
  custom_run();
  p01_basic::run();
  p02_members::run();
  p03_struct_ret::run();
  p04_tuple::run();
  p10_modes::run();
  return check_exit();
}
