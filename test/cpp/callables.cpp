// Calls through C++'s callables: a member function pointer (a non-virtual
// member and a virtual one: the call picks a vtable entry or the function
// itself), a std::function holding a lambda, and a capturing lambda passed
// to a template. The pointer a member pointer's call merges is only called,
// so it is its own shadow. Both modes, against the analytic derivatives.
// RUN: %check-c %s %t -std=c++17
#include <cmath>
#include <functional>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

struct Model {
  double w;
  double loss(double x) const { return w * x * x + std::sin(x); }
  virtual double scaled(double x) const { return w * x * x * x; }
  virtual ~Model() = default;
};
struct Doubled : Model {
  double scaled(double x) const override { return 2 * w * x * x * x; }
};
typedef double (Model::*Member)(double) const;

static double via_member(const Model *m, Member f, double x) { return (m->*f)(x); }

// w x^2 + sin x, w = 3: 6 x + cos x
static double member_loss(double x) {
  Model m;
  m.w = 3.0;
  return via_member(&m, &Model::loss, x);
}

// 2 w x^3 through the virtual member, w = 0.5: 3 x^2
static double virtual_member_loss(double x) {
  Doubled d;
  d.w = 0.5;
  return via_member(&d, &Model::scaled, x);
}

static double via_function(const std::function<double(double)> &f, double x) { return f(x); }

// x e^x: (1 + x) e^x
static double function_loss(double x) {
  std::function<double(double)> f = [](double y) { return std::exp(y) * y; };
  return via_function(f, x);
}

template <class F> static double twice(F f, double x) { return 2.0 * f(x); }

// 2 k x^2: 4 k x
static double lambda_loss(double x, double k) {
  return twice([k](double y) { return k * y * y; }, x);
}

int main() {
  for (double x : {0.7, -1.3}) {
    double member = 6 * x + std::cos(x), virt = 3 * x * x, function = (1 + x) * std::exp(x);
    check_close("member, reverse", __enzyme_autodiff((void *)member_loss, x), member, 1e-12);
    check_close("member, forward", __enzyme_fwddiff((void *)member_loss, enzyme_dup, x, 1.0), member, 1e-12);
    check_close("virtual member, reverse", __enzyme_autodiff((void *)virtual_member_loss, x), virt, 1e-12);
    check_close("virtual member, forward", __enzyme_fwddiff((void *)virtual_member_loss, enzyme_dup, x, 1.0),
                virt, 1e-12);
    check_close("std::function, reverse", __enzyme_autodiff((void *)function_loss, x), function, 1e-12);
    check_close("std::function, forward", __enzyme_fwddiff((void *)function_loss, enzyme_dup, x, 1.0),
                function, 1e-12);
    check_close("lambda, reverse",
                __enzyme_autodiff((void *)lambda_loss, enzyme_out, x, enzyme_const, 1.5), 6 * x, 1e-12);
    check_close("lambda, forward",
                __enzyme_fwddiff((void *)lambda_loss, enzyme_dup, x, 1.0, enzyme_const, 1.5), 6 * x, 1e-12);
  }
  return check_exit();
}
