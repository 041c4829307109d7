// A class hierarchy with virtual functions, called inside the differentiated
// function through base-class pointers: an abstract base, two levels of
// derived classes, an override calling the base's version, and a virtual
// call in a loop over a mixed array of objects. The objects are Const; their
// parameters are read through the virtual calls. Both modes, against the
// analytic derivatives.
// RUN: %check-c %s %t -std=c++17
#include <cmath>
#include <initializer_list>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

struct Term {
  virtual double value(double x) const = 0;
  virtual double slope(double x) const = 0; // the analytic derivative, for the check
  virtual ~Term() = default;
};

struct Power : Term {
  double c;
  int k;
  Power(double c, int k) : c(c), k(k) {}
  double value(double x) const override { return c * std::pow(x, k); }
  double slope(double x) const override { return c * k * std::pow(x, k - 1); }
};

struct Sine : Term {
  double a;
  explicit Sine(double a) : a(a) {}
  double value(double x) const override { return std::sin(a * x); }
  double slope(double x) const override { return a * std::cos(a * x); }
};

// A second level: the base's value, damped
struct DampedSine : Sine {
  double d;
  DampedSine(double a, double d) : Sine(a), d(d) {}
  double value(double x) const override { return std::exp(-d * x) * Sine::value(x); }
  double slope(double x) const override {
    return std::exp(-d * x) * (Sine::slope(x) - d * Sine::value(x));
  }
};

__attribute__((noinline)) static double total(const Term *const *terms, int n, double x) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += terms[i]->value(x);
  return s;
}

static double total_slope(const Term *const *terms, int n, double x) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += terms[i]->slope(x);
  return s;
}

// Through a reference to the base, outside any loop
static double single(const Term &t, double x) { return t.value(x) * x; }

int main() {
  Power p(1.5, 3);
  Sine s(2.0);
  DampedSine ds(0.5, 0.3);
  Power q(-0.25, 2);
  const Term *terms[] = {&p, &s, &ds, &q, &ds};
  const int n = 5;
  for (double x : {0.3, 1.1, 2.5}) {
    double g = __enzyme_autodiff((void *)total, enzyme_const, terms, enzyme_const, n, enzyme_out, x);
    double t = __enzyme_fwddiff((void *)total, enzyme_const, terms, enzyme_const, n, enzyme_dup, x, 1.0);
    check_close("reverse, a virtual call in a loop", g, total_slope(terms, n, x), 1e-12);
    check_close("forward, a virtual call in a loop", t, total_slope(terms, n, x), 1e-12);
    double g1 = __enzyme_autodiff((void *)single, enzyme_const, (const Term *)&ds, enzyme_out, x);
    double t1 = __enzyme_fwddiff((void *)single, enzyme_const, (const Term *)&ds, enzyme_dup, x, 1.0);
    double want = ds.slope(x) * x + ds.value(x);
    check_close("reverse, through a base reference", g1, want, 1e-12);
    check_close("forward, through a base reference", t1, want, 1e-12);
  }
  return check_exit();
}
