// std::function objects copied inside the differentiated code, as an ODE
// integrator or a quadrature rule taking its right-hand side by value
// does: the copy goes through the manager's clone case, which copies the
// closure through a reference to its class (`_M_create<F const&>`) into
// the heap (a closure of more than 16 bytes) or into the `_Any_data`
// buffer. Its type comes from the closure's operator(); before, at -O0
// every such copy, and at -O2 a heap one, stopped the program ("copies
// memory (memcpy) whose element type Kinase cannot decide"). Closures of
// three doubles (Lorenz parameters), one double, two references, and a
// double beside a pointer (split field by field so the pointer's shadow
// moves); reverse against central differences, forward against reverse.
// RUN: %check-c %s %t -std=c++17
#include <array>
#include <cmath>
#include <functional>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

using State = std::array<double, 3>;
using Rhs = std::function<State(const State &)>;

static State axpy(const State &a, double h, const State &b) {
  State r;
  for (int i = 0; i < 3; i++)
    r[i] = a[i] + h * b[i];
  return r;
}

static State rk4(Rhs f, State y, double h, int n) {
  for (int s = 0; s < n; s++) {
    State k1 = f(y), k2 = f(axpy(y, h / 2, k1)), k3 = f(axpy(y, h / 2, k2)), k4 = f(axpy(y, h, k3));
    for (int i = 0; i < 3; i++)
      y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }
  return y;
}

static double lorenz_final(const double *p, const double *y0) {
  double sigma = p[0], rho = p[1], beta = p[2];
  Rhs lorenz = [=](const State &y) -> State {
    return {sigma * (y[1] - y[0]), y[0] * (rho - y[2]) - y[1], y[0] * y[1] - beta * y[2]};
  };
  State yf = rk4(lorenz, {y0[0], y0[1], y0[2]}, 0.01, 40);
  return yf[0] + 0.5 * yf[1] * yf[2];
}

static double trapezoid(std::function<double(double)> f, double a, double b, int n) {
  double h = (b - a) / n, s = 0.5 * (f(a) + f(b));
  for (int i = 1; i < n; i++)
    s += f(a + i * h);
  return s * h;
}

// w, duplicated: a pointer captured beside an active double.
static double quadratures(double p, const double *w) {
  double q = p * p;
  std::function<double(double)> one = [=](double t) { return std::exp(-p * t * t); };
  std::function<double(double)> refs = [&](double t) { return q * std::sin(p * t); };
  std::function<double(double)> mixed = [=](double t) { return p * w[0] * std::cos(t) + w[1]; };
  return trapezoid(one, 0, 1, 32) + trapezoid(refs, 0, 1, 32) + trapezoid(mixed, 0, 1, 32);
}

static const double weights[2] = {1.5, 0.25};
static double quadratures_at(double p) { return quadratures(p, weights); }

int main() {
  double p[3] = {10, 28, 8.0 / 3}, y0[3] = {1, 1, 1}, dp[3] = {0}, dy0[3] = {0};
  __enzyme_autodiff((void *)lorenz_final, enzyme_dup, p, dp, enzyme_dup, y0, dy0);
  for (int i = 0; i < 6; i++) {
    double *v = i < 3 ? &p[i] : &y0[i - 3], g = i < 3 ? dp[i] : dy0[i - 3];
    double v0 = *v, h = 1e-6 * fmax(1, fabs(v0));
    *v = v0 + h;
    double fp = lorenz_final(p, y0);
    *v = v0 - h;
    double fm = lorenz_final(p, y0);
    *v = v0;
    double tp[3] = {0}, ty[3] = {0};
    (i < 3 ? tp : ty)[i % 3] = 1;
    char what[48];
    snprintf(what, sizeof what, "lorenz: reverse %d", i);
    check_close(what, g, (fp - fm) / (2 * h), 1e-5);
    snprintf(what, sizeof what, "lorenz: forward %d", i);
    check_close(what, __enzyme_fwddiff((void *)lorenz_final, enzyme_dup, p, tp, enzyme_dup, y0, ty), g, 1e-9);
  }

  double x = 0.8, fd = central_difference(quadratures_at, x), w[2] = {weights[0], weights[1]};
  double dw[2] = {0}, tw[2] = {0};
  check_close("quadratures: reverse",
              __enzyme_autodiff((void *)quadratures, enzyme_out, x, enzyme_dup, w, dw), fd, 1e-6);
  // d/dw0 = x * (trapezoid rule of cos on [0, 1]), d/dw1 = 1
  double cosines = 0.5 * (1 + cos(1.0));
  for (int i = 1; i < 32; i++)
    cosines += cos(i / 32.0);
  check_close("quadratures: reverse d/dw0", dw[0], x * cosines / 32, 1e-12);
  check_close("quadratures: reverse d/dw1", dw[1], 1, 1e-12);
  check_close("quadratures: forward",
              __enzyme_fwddiff((void *)quadratures, enzyme_dup, x, 1.0, enzyme_dup, w, tw), fd, 1e-6);
  return check_exit();
}
