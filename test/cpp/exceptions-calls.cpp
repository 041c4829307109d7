// Nested calls with invokes, compiled with exceptions: each level holds a
// std::vector, so its calls are invokes with cleanup landing pads; the
// innermost calls a function defined here that is not noexcept, and the
// middle one makes a virtual call (an indirect invoke, compared with the
// address-taken functions of its type). Every derivative called is invoked
// with its caller's landing pad. Both modes, against the analytic
// derivatives.
// RUN: %check-c %s %t -std=c++17
#include <vector>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

struct Shape {
  virtual double area(double s) const = 0;
  virtual ~Shape() = default;
};
struct Square : Shape {
  double area(double s) const override { return s * s; }
};
struct Disc : Shape {
  double area(double s) const override { return 3.0 * s * s; }
};

__attribute__((noinline)) double cube(double x) { return x * x * x; }

static double inner(const std::vector<double> &v) {
  std::vector<double> cubes(v.size());
  for (size_t i = 0; i < v.size(); i++)
    cubes[i] = cube(v[i]);
  double s = 0;
  for (double c : cubes)
    s += c;
  return s;
}

// 2 x^3 + k x^2, with k the shape's factor
static double middle(double x, const Shape &shape) {
  std::vector<double> v(2, x);
  return inner(v) + shape.area(x);
}

// 4 x^3 + 2 k x^2: the derivative is 12 x^2 + 4 k x
static double outer(double x, const Shape *shape) {
  std::vector<double> w(1, x);
  return 2 * middle(w[0], *shape);
}

int main() {
  Square square;
  Disc disc;
  const Shape *shapes[] = {&square, &disc};
  double factors[] = {1.0, 3.0};
  for (int i = 0; i < 2; i++)
    for (double x : {0.5, -2.0}) {
      double want = 12 * x * x + 4 * factors[i] * x;
      check_close("reverse", __enzyme_autodiff((void *)outer, enzyme_out, x, enzyme_const, shapes[i]), want,
                  1e-12);
      check_close("forward",
                  __enzyme_fwddiff((void *)outer, enzyme_dup, x, 1.0, enzyme_const, shapes[i]), want,
                  1e-12);
    }
  return check_exit();
}
