// Probe kept as a test: a class template Vec<T, N> over std::array with
// operators, differentiated at float and double; virtual calls through a
// vector of class-template instances; std::sort with std::greater; forward
// mode with an enzyme_dupnoneed output. Passed at -O0 and -O2 when written.
// RUN: %check-c %s %t -std=c++17
#include <cmath>
#include <array>
#include <vector>
#include <algorithm>
#include <functional>
#include "check.h"
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
float __enzyme_autodiff_f(void *, ...) asm("__enzyme_autodiff");
int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
template <typename T, int N> struct Vec {
  std::array<T, N> v;
  Vec operator+(const Vec &o) const { Vec r; for (int i = 0; i < N; i++) r.v[i] = v[i] + o.v[i]; return r; }
  Vec operator*(T s) const { Vec r; for (int i = 0; i < N; i++) r.v[i] = v[i] * s; return r; }
  T &operator[](int i) { return v[i]; }
  T norm2() const { T s = 0; for (auto e : v) s += e * e; return s; }
};
template <typename T> T energy(const T *x) {
  Vec<T, 3> a{{x[0], x[1], x[2]}}, b{{x[2], x[0], T(1)}};
  Vec<T, 3> c = (a + b) * x[1];
  c[0] = std::max(c[0], T(0.1));
  return std::sqrt(c.norm2());
}
struct Base { virtual double f(double) const = 0; virtual ~Base() {} };
template <int K> struct Pow : Base { double f(double x) const override { return std::pow(x, K); } };
static double sum_virtual(const double *x, int n) {
  std::vector<Base *> fs = {new Pow<2>(), new Pow<3>(), new Pow<1>()};
  double s = 0;
  for (int i = 0; i < n; i++) s += fs[i % 3]->f(x[i]);
  for (auto p : fs) delete p;
  return s;
}
static double sorted_top(const double *x, int n) {
  std::vector<double> v(x, x + n);
  std::sort(v.begin(), v.end(), std::greater<double>());
  return v[0] * 3 + v[1] * 2 + v[2];
}
static void vecfun(const double *x, double *out) { out[0] = energy(x); out[1] = x[0] * x[1]; }
int main() {
  double x[3] = {0.3, 1.2, 0.8}, d[3] = {0};
  __enzyme_autodiff((void *)energy<double>, enzyme_dup, x, d);
  for (int i = 0; i < 3; i++) {
    double h = 1e-6, xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
    xp[i] += h; xm[i] -= h;
    check_close("energy", d[i], (energy(xp) - energy(xm)) / (2 * h), 1e-6);
  }
  float xf[3] = {0.3f, 1.2f, 0.8f}, df[3] = {0};
  __enzyme_autodiff_f((void *)energy<float>, enzyme_dup, xf, df);
  for (int i = 0; i < 3; i++) check_close("energy f", df[i], d[i], 1e-4);
  double xs[5] = {0.5, 1.5, 2.0, 0.7, 1.1}, ds[5] = {0};
  __enzyme_autodiff((void *)sum_virtual, enzyme_dup, xs, ds, enzyme_const, 5);
  double w[5] = {2 * 0.5, 3 * 1.5 * 1.5, 1, 2 * 0.7, 3 * 1.1 * 1.1};
  for (int i = 0; i < 5; i++) check_close("virtual", ds[i], w[i], 1e-12);
  double dt[5] = {0};
  __enzyme_autodiff((void *)sorted_top, enzyme_dup, xs, dt, enzyme_const, 5);
  double wt[5] = {0, 2, 3, 0, 1};
  for (int i = 0; i < 5; i++) check_close("sorted", dt[i], wt[i], 1e-12);
  double out[2], dout[2] = {0}, tx[3] = {1, 0, 0};
  __enzyme_fwddiff((void *)vecfun, enzyme_dup, x, tx, enzyme_dupnoneed, out, dout);
  check_close("fwd dupnoneed", dout[0], d[0], 1e-10);
  check_close("fwd dupnoneed 1", dout[1], x[1], 1e-12);
  return check_exit();
}
