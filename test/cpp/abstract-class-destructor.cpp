// Objects of an abstract class made, called and deleted inside the
// differentiated function. The virtual calls are compared with the module's
// functions of their type, among them the abstract class's deleting
// destructor, which only traps (an error "it never returns" at -O2 before);
// and a helper that always throws guards bad input. Functions that never
// return hand nothing back to differentiate: their calls run as they are.
// RUN: %check-c %s %t -std=c++17
#include <cmath>
#include <stdexcept>
#include <string>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

struct Potential {
  virtual ~Potential() = default;
  virtual double at(double r) const = 0;
};

struct Harmonic : Potential {
  double k;
  explicit Harmonic(double k) : k(k) {}
  double at(double r) const override { return 0.5 * k * r * r; }
};

struct Morse : Potential {
  double depth, width;
  Morse(double d, double w) : depth(d), width(w) {}
  double at(double r) const override {
    double e = 1 - std::exp(-width * r);
    return depth * e * e;
  }
};

[[noreturn]] __attribute__((noinline)) static void bad_distance(double r) {
  throw std::domain_error("negative distance " + std::to_string(r));
}

static double total(double r) {
  if (r < 0)
    bad_distance(r);
  Potential *terms[3] = {new Harmonic(3.0), new Morse(2.0, 0.5), new Harmonic(1.0)};
  double e = 0;
  for (Potential *t : terms)
    e += t->at(r);
  for (Potential *t : terms)
    delete t;
  return e;
}

static double total_dr(double r) {
  double e = std::exp(-0.5 * r);
  return 3.0 * r + 2.0 * 2.0 * (1 - e) * 0.5 * e + 1.0 * r;
}

int main() {
  for (double r : {0.25, 1.0, 2.5}) {
    check_close("reverse", __enzyme_autodiff((void *)total, enzyme_out, r), total_dr(r), 1e-12);
    check_close("forward", __enzyme_fwddiff((void *)total, enzyme_dup, r, 1.0), total_dr(r), 1e-12);
  }
  bool thrown = false;
  try {
    __enzyme_autodiff((void *)total, enzyme_out, -1.0);
  } catch (const std::domain_error &) {
    thrown = true;
  }
  check_true("bad input throws", thrown);
  return check_exit();
}
