// std::shared_ptr made and copied inside the differentiated function:
// make_shared puts the reference counts in the block that also holds the
// object (memory with a shadow, since the object holds doubles), and copies
// and releases count with integer atomics there (__exchange_and_add,
// __atomic_add; weak_ptr::lock a compare-and-swap). An atomic on an integer
// narrower than an address carries no derivative and is let through; the
// object's values differentiate as any others.
// RUN: %check-c %s %t -std=c++17
#include <cmath>
#include <initializer_list>
#include <memory>
#include <vector>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

struct Spring {
  Spring(double k, double rest) : k(k), rest(rest) {}
  double k, rest;
  double energy(double x) const { return 0.5 * k * (x - rest) * (x - rest); }
};

// k and rest come from x, through shared objects copied into a vector and a
// weak reference locked again
static double total(double x) {
  auto a = std::make_shared<Spring>(x, 1.0);
  auto b = std::make_shared<Spring>(2.0, x * x);
  std::vector<std::shared_ptr<Spring>> springs = {a, b, a};
  std::weak_ptr<Spring> weak = b;
  double e = 0;
  for (const auto &s : springs)
    e += s->energy(x);
  if (auto locked = weak.lock())
    e += locked->k * x;
  return e;
}

// 2 * (x/2)(x - 1)^2 + (x - x^2)^2 + 2x
static double total_dx(double x) {
  return (x - 1) * (x - 1) + 2 * x * (x - 1) + 2 * (x - x * x) * (1 - 2 * x) + 2;
}

int main() {
  for (double x : {-0.5, 0.75, 2.0}) {
    check_close("reverse", __enzyme_autodiff((void *)total, enzyme_out, x), total_dx(x), 1e-12);
    check_close("forward", __enzyme_fwddiff((void *)total, enzyme_dup, x, 1.0), total_dx(x), 1e-12);
  }
  return check_exit();
}
