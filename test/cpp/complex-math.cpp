// std::complex<double> arithmetic and math inside the differentiated
// function: products, quotients, exp, abs, arg, conj, pow by an integer, and
// a complex number built from two active doubles; its real-valued results
// are differentiated in both modes, against the analytic derivatives and
// central differences. Complex values are passed by value and returned.
// RUN: %check-c %s %t -std=c++17
#include <cmath>
#include <initializer_list>
#include <complex>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
// Two enzyme_out gradients come back as a struct of two doubles.
struct Pair {
  double dx, dy;
};
extern "C" Pair __enzyme_autodiff_pair(void *, ...);

typedef std::complex<double> cplx;

// |z^3 / (1 + z)| with z = x + i y
static double magnitude(double x, double y) {
  cplx z(x, y);
  cplx w = z * z * z / (1.0 + z);
  return std::abs(w);
}

// Re(exp(i t) * conj(c)) + arg(c) * t, c = (1.5, -0.5) Const
static double phase(double t) {
  const cplx c(1.5, -0.5);
  cplx r = std::exp(cplx(0, t)) * std::conj(c);
  return r.real() + std::arg(c) * t;
}

// the real part of a polynomial evaluated in complex arithmetic
static double poly(double x, double y) {
  cplx z(x, y);
  cplx p = std::pow(z, 3) - 2.0 * z + cplx(0.5, 1.0);
  return std::real(p) + std::imag(p);
}

template <typename F> static double diff_x(F f, double x, double y) {
  double h = 1e-6;
  return (f(x + h, y) - f(x - h, y)) / (2 * h);
}
template <typename F> static double diff_y(F f, double x, double y) {
  double h = 1e-6;
  return (f(x, y + h) - f(x, y - h)) / (2 * h);
}

int main() {
  double pts[][2] = {{0.5, 0.25}, {-0.3, 1.2}, {2.0, -1.0}};
  for (auto &p : pts) {
    double x = p[0], y = p[1];
    Pair g = __enzyme_autodiff_pair((void *)magnitude, enzyme_out, x, enzyme_out, y);
    check_close("d|w|/dx", g.dx, diff_x(magnitude, x, y), 1e-6);
    check_close("d|w|/dy", g.dy, diff_y(magnitude, x, y), 1e-6);
    double tx = __enzyme_fwddiff((void *)magnitude, enzyme_dup, x, 1.0, enzyme_dup, y, 0.0);
    double ty = __enzyme_fwddiff((void *)magnitude, enzyme_dup, x, 0.0, enzyme_dup, y, 1.0);
    check_close("forward d|w|/dx", tx, g.dx, 1e-12);
    check_close("forward d|w|/dy", ty, g.dy, 1e-12);

    // p(z) = z^3 - 2z + c is analytic: Re p + Im p has gradient
    // (Re p' + Im p', Re p' - Im p') ... with p' = 3 z^2 - 2:
    // d/dx = Re p' + Im p', d/dy = -Im p' + Re p'
    cplx z(x, y), dp = 3.0 * z * z - 2.0;
    Pair q = __enzyme_autodiff_pair((void *)poly, enzyme_out, x, enzyme_out, y);
    check_close("poly d/dx", q.dx, dp.real() + dp.imag(), 1e-12);
    check_close("poly d/dy", q.dy, dp.real() - dp.imag(), 1e-12);
    double tq = __enzyme_fwddiff((void *)poly, enzyme_dup, x, 0.5, enzyme_dup, y, -2.0);
    check_close("poly forward . u", tq, 0.5 * q.dx - 2.0 * q.dy, 1e-12);
  }
  for (double t : {0.0, 0.8, -2.1}) {
    // Re(e^{it} (1.5 + 0.5 i)) = 1.5 cos t - 0.5 sin t; arg c = atan2(-0.5, 1.5)
    double want = -1.5 * std::sin(t) - 0.5 * std::cos(t) + std::atan2(-0.5, 1.5);
    double g = __enzyme_autodiff((void *)phase, enzyme_out, t);
    double f = __enzyme_fwddiff((void *)phase, enzyme_dup, t, 1.0);
    check_close("phase, reverse", g, want, 1e-12);
    check_close("phase, forward", f, want, 1e-12);
  }
  return check_exit();
}
