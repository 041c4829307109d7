// `delete` through a base pointer (std::unique_ptr's default_delete) in a
// program with many polymorphic classes. The deleting destructor is called
// through the vtable as a `void (ptr)` function, a type that every virtual
// destructor, std::shared_ptr's control blocks and the destructors handed
// to __cxa_throw share: more than the 16 functions an indirect call is
// compared with, so at -O0 (where default_delete is not inlined and the
// call not resolved) the call stayed indirect and was refused. A call
// that loads its callee from a vtable slot is compared only with the
// functions some vtable holds at that slot, and with those whose address
// is taken elsewhere (analysis/vtables.c).
// RUN: %check-c %s %t -std=c++17
#include <cmath>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <vector>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

struct Term {
  virtual ~Term() = default;
  virtual double eval(double x) const = 0;
};

// nine kinds of terms: eighteen destructors in vtables
#define TERM(name, expr)                                                                           \
  struct name : Term {                                                                             \
    double c;                                                                                      \
    explicit name(double c) : c(c) {}                                                              \
    double eval(double x) const override { return expr; }                                          \
  };
TERM(Lin, c * x)
TERM(Sq, c * x * x)
TERM(Sin, c * std::sin(x))
TERM(Cos, c * std::cos(x))
TERM(Exp, c * std::exp(x))
TERM(Log, c * std::log(x))
TERM(Sqrt, c * std::sqrt(x))
TERM(Tanh, c * std::tanh(x))
TERM(Cube, c * x * x * x)

// the coefficients depend on x too; the terms are destroyed in the function
static double model(double x) {
  std::vector<std::unique_ptr<Term>> terms;
  terms.push_back(std::make_unique<Lin>(2.0));
  terms.push_back(std::make_unique<Sq>(x));
  terms.push_back(std::make_unique<Sin>(1.5));
  terms.push_back(std::make_unique<Exp>(0.5 * x));
  terms.push_back(std::make_unique<Log>(3.0));
  double s = 0;
  for (const auto &t : terms)
    s += t->eval(x);
  return s;
}

// shared_ptr's control blocks and a thrown exception's destructor add
// more functions of the type
static double shared_model(double x) {
  auto t = std::make_shared<Cube>(x);
  std::shared_ptr<Term> u = std::make_shared<Tanh>(2.0);
  if (x < 0)
    throw std::domain_error("negative");
  return t->eval(x) + u->eval(x);
}

static double unused(double x) {
  Cos a(1.0);
  Sqrt b(2.0);
  return a.eval(x) + b.eval(x);
}

int main() {
  for (double x : {0.4, 1.3}) {
    check_both_modes(model, x, 1e-6);
    check_both_modes(shared_model, x, 1e-6);
  }
  double x = 0.9;
  check_close("model'(0.9)", __enzyme_autodiff((void *)model, x),
              2 + 3 * x * x + 1.5 * std::cos(x) + 0.5 * std::exp(x) * (1 + x) + 3 / x, 1e-12);
  check_close("shared_model'(0.9)", __enzyme_fwddiff((void *)shared_model, x, 1.0),
              4 * x * x * x + 2 * (1 - std::tanh(x) * std::tanh(x)), 1e-12);
  return unused(x) > 0 ? check_exit() : 1;
}
