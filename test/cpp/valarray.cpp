// std::valarray arithmetic: its expression templates build closures that
// hold a reference to an array beside a double (`2.0 * a`), copied whole
// into the expression that holds them, a memcpy of pointers and floats
// together. Such a copy of a member (a typed field) is split into one load
// and store per field before differentiating, as a copy into a local is.
// RUN: %check-c %s %t -std=c++17
#include <cmath>
#include <valarray>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_dupnoneed;
extern "C" void __enzyme_autodiff(void *, ...);
extern "C" double __enzyme_fwddiff(void *, ...);

static double quadratic(const std::valarray<double> *a) {
  std::valarray<double> b = (*a) * (*a) + 2.0 * (*a);
  return b.sum();
}

// sum over i of (exp(a_i) w_i - a_i / 2)^2
static double weighted(const std::valarray<double> *a, const std::valarray<double> *w) {
  std::valarray<double> e = std::exp(*a) * (*w) - (*a) / 2.0;
  return (e * e).sum();
}

// compound assignment, a math function over the array, max and min
static double compound(std::valarray<double> *a) {
  std::valarray<double> s = std::sqrt(*a);
  s *= 3.0;
  s += *a;
  return s.max() + 0.5 * s.min();
}

static double central(double (*f)(std::valarray<double> *), std::valarray<double> a, int i) {
  double h = 1e-6 * (1 + std::fabs(a[i]));
  std::valarray<double> p = a, m = a;
  p[i] += h;
  m[i] -= h;
  return (f(&p) - f(&m)) / (2 * h);
}

int main() {
  std::valarray<double> a = {1.0, 2.0, 3.0}, da(0.0, 3), w = {0.5, -1.0, 2.0}, dw(0.0, 3);
  __enzyme_autodiff((void *)quadratic, &a, &da);
  for (int i = 0; i < 3; i++)
    check_close("a * a + 2 a", da[i], 2 * a[i] + 2, 1e-12);

  // forward mode: the tangent of the sum along a direction
  std::valarray<double> direction = {1.0, -2.0, 0.5};
  double t = __enzyme_fwddiff((void *)quadratic, enzyme_dup, &a, &direction);
  double want = 0;
  for (int i = 0; i < 3; i++)
    want += (2 * a[i] + 2) * direction[i];
  check_close("a * a + 2 a, forward", t, want, 1e-12);

  da = 0.0;
  __enzyme_autodiff((void *)weighted, enzyme_dup, &a, &da, enzyme_dup, &w, &dw);
  for (int i = 0; i < 3; i++) {
    double e = std::exp(a[i]) * w[i] - a[i] / 2;
    check_close("exp(a) w - a / 2: da", da[i], 2 * e * (std::exp(a[i]) * w[i] - 0.5), 1e-12);
    check_close("exp(a) w - a / 2: dw", dw[i], 2 * e * std::exp(a[i]), 1e-12);
  }

  da = 0.0;
  __enzyme_autodiff((void *)compound, &a, &da);
  for (int i = 0; i < 3; i++)
    check_close("sqrt, *=, +=, max, min", da[i], central(compound, a, i), 1e-6);
  return check_exit();
}
