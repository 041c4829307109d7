// Pointers read out of Const memory have no shadow, in C++ as in C: a loss
// over a Const std::vector (range-for, whose iterator is local memory passed
// to operator++ and operator* by address), a Const std::array through
// iterators, and a Const object reached through a reference. Both modes,
// against the analytic gradients.
// RUN: %check-c %s %t -std=c++17 -fno-exceptions
// RUN: %check-c %s %t -std=c++17
#include <array>
#include <vector>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

struct Model {
  double w, b;
};

static double loss(const Model *m, const std::vector<double> *xs) {
  double s = 0;
  for (double x : *xs) {
    double r = m->w * x + m->b - 1.0;
    s += r * r;
  }
  return s;
}

static double weighted(const Model &m, const std::array<double, 3> &ws) {
  double s = 0;
  for (auto it = ws.begin(); it != ws.end(); ++it)
    s += *it * m.w * m.w;
  return s;
}

int main() {
  Model m{0.5, 0.25}, dm{0, 0};
  std::vector<double> xs = {1.0, 2.0, 3.0};
  __enzyme_autodiff((void *)loss, enzyme_dup, &m, &dm, enzyme_const, &xs);
  double gw = 0, gb = 0;
  for (double x : xs) {
    double r = m.w * x + m.b - 1.0;
    gw += 2 * r * x;
    gb += 2 * r;
  }
  check_close("range-for over a Const vector: dw", dm.w, gw, 1e-14);
  check_close("range-for over a Const vector: db", dm.b, gb, 1e-14);

  Model tm{1.0, 0.0};
  double t = __enzyme_fwddiff((void *)loss, enzyme_dup, &m, &tm, enzyme_const, &xs);
  check_close("forward, tangent along w", t, gw, 1e-14);

  std::array<double, 3> ws = {1.0, 2.0, 4.0};
  Model dm2{0, 0};
  __enzyme_autodiff((void *)weighted, enzyme_dup, &m, &dm2, enzyme_const, &ws);
  check_close("iterators over a Const array: dw", dm2.w, 7.0 * 2 * m.w, 1e-14);
  return check_exit();
}
