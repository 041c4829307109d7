// Expression templates written with CRTP (Add, Scale, and Map, which holds
// a reference to its operand beside a function pointer: `Map(const A &a,
// double (*f)(double)) : a(a), f(f)`, whose constructor stores the function
// into an object with a shadow; refused before, see
// test/c/callback-stored-by-callee.c), and a network of layers owned by
// std::unique_ptr<Layer> with virtual forward functions.
// RUN: %check-c %s %t -std=c++17
#include <initializer_list>
#include <cmath>
#include <cstddef>
#include <vector>
#include <memory>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
extern "C" double __enzyme_autodiff(void *, ...);
extern "C" double __enzyme_fwddiff(void *, ...);

template <class E> struct Expr {
  const E &self() const { return static_cast<const E &>(*this); }
  double operator[](size_t i) const { return self()[i]; }
  size_t size() const { return self().size(); }
};
struct Vec : Expr<Vec> {
  std::vector<double> d;
  explicit Vec(size_t n, double v = 0) : d(n, v) {}
  template <class E> Vec(const Expr<E> &e) : d(e.size()) { for (size_t i = 0; i < d.size(); i++) d[i] = e[i]; }
  double operator[](size_t i) const { return d[i]; }
  double &operator[](size_t i) { return d[i]; }
  size_t size() const { return d.size(); }
};
template <class A, class B> struct Add : Expr<Add<A, B>> {
  const A &a; const B &b;
  Add(const A &a, const B &b) : a(a), b(b) {}
  double operator[](size_t i) const { return a[i] + b[i]; }
  size_t size() const { return a.size(); }
};
template <class A> struct Scale : Expr<Scale<A>> {
  double s; const A &a;
  Scale(double s, const A &a) : s(s), a(a) {}
  double operator[](size_t i) const { return s * a[i]; }
  size_t size() const { return a.size(); }
};
template <class A> struct Map : Expr<Map<A>> {
  const A &a; double (*f)(double);
  Map(const A &a, double (*f)(double)) : a(a), f(f) {}
  double operator[](size_t i) const { return f(a[i]); }
  size_t size() const { return a.size(); }
};
template <class A, class B> Add<A, B> operator+(const Expr<A> &a, const Expr<B> &b) { return {a.self(), b.self()}; }
template <class A> Scale<A> operator*(double s, const Expr<A> &a) { return {s, a.self()}; }
static double sq(double t) { return t * t; }
static double sn(double t) { return std::sin(t); }

double et(const double *x, int n) {
  Vec v(n), w(n, 1.0);
  for (int i = 0; i < n; i++) v[i] = x[i];
  Vec r = 2.0 * v + Map<Vec>(v, sq) + Map<Vec>(w, sn);
  Vec q = Map<Vec>(r, sn) + 0.5 * r;
  double s = 0;
  for (size_t i = 0; i < q.size(); i++) s += q[i];
  return s;
}

struct Layer { virtual ~Layer() = default; virtual void fwd(const double *in, double *out) const = 0; virtual int width() const = 0; };
struct Dense : Layer {
  std::vector<double> W; int nin, nout;
  Dense(const double *w, int nin, int nout) : W(w, w + nin * nout), nin(nin), nout(nout) {}
  void fwd(const double *in, double *out) const override { for (int o = 0; o < nout; o++) { out[o] = 0; for (int i = 0; i < nin; i++) out[o] += W[o * nin + i] * in[i]; } }
  int width() const override { return nout; }
};
struct Tanh : Layer { int n; explicit Tanh(int n) : n(n) {} void fwd(const double *in, double *out) const override { for (int i = 0; i < n; i++) out[i] = std::tanh(in[i]); } int width() const override { return n; } };
double net(const double *w, const double *x) {
  std::vector<std::unique_ptr<Layer>> L;
  L.emplace_back(new Dense(w, 3, 4));
  L.emplace_back(new Tanh(4));
  L.emplace_back(new Dense(w + 12, 4, 1));
  std::vector<double> a(x, x + 3), b;
  for (auto &l : L) { b.assign(l->width(), 0.0); l->fwd(a.data(), b.data()); a.swap(b); }
  return a[0] * a[0];
}

int main() {
  double x[4] = {0.3, -0.7, 1.1, 0.2}, dx[4] = {0};
  __enzyme_autodiff((void *)et, enzyme_dup, x, dx, enzyme_const, 4);
  for (int i = 0; i < 4; i++) {
    double r = 2 * x[i] + x[i] * x[i] + std::sin(1.0), dr = 2 + 2 * x[i];
    check_close("et", dx[i], (std::cos(r) + 0.5) * dr, 1e-12);
    double t[4] = {0}; t[i] = 1;
    check_close("et fwd", __enzyme_fwddiff((void *)et, enzyme_dup, x, t, enzyme_const, 4), (std::cos(r) + 0.5) * dr, 1e-12);
  }
  double w[16], dw[16] = {0}, in[3] = {0.5, -0.2, 0.9}, din[3] = {0};
  for (int i = 0; i < 16; i++) w[i] = 0.1 * std::sin(i + 1.0);
  __enzyme_autodiff((void *)net, enzyme_dup, w, dw, enzyme_dup, in, din);
  for (int i = 0; i < 16; i += 3) {
    double h = 1e-6, s = w[i];
    w[i] = s + h; double fp = net(w, in); w[i] = s - h; double fm = net(w, in); w[i] = s;
    check_close("net dw", dw[i], (fp - fm) / (2 * h), 1e-6);
    double t[16] = {0}, tin[3] = {0}; t[i] = 1;
    check_close("net fwd", __enzyme_fwddiff((void *)net, enzyme_dup, w, t, enzyme_dup, in, tin), (fp - fm) / (2 * h), 1e-6);
  }
  return check_exit();
}
