// A std::function copied (a named one passed by value, or assigned to
// another): its manager's clone case copies the functor out of the
// `_Any_data` it is held in, through a reference to the functor's class
// (`_M_create<F const&>`), reached only through the manager's pointer.
// The class's type comes from its member functions (the lambda's
// operator() addresses its captures through `this`), so the copy moves the
// captured pointer's shadow at -O0 too, where it stopped the program
// before ("it copies 8 bytes whose type Kinase cannot decide").
// A functor whose class has no member function of its own (here one
// deriving its operator() from a base) has the struct type clang names
// after it ("struct.Shifted"). A class template's instances have no such
// name of their own: one of those, deriving its operator() too, still has
// no type, and that copy stops the program where it runs, with the reason
// and the line.
// RUN: %check-c %s %t -std=c++17
// RUN: %kinase-cxx -O2 -g -DUNTYPED %testinc %s -o %t.untyped
// RUN: not --crash %t.untyped 2>&1 | FileCheck %s
// CHECK: kinase: the derivative of '{{.*}}std::_Function_base::_Base_manager<ShiftedBy<1> >::_M_create<{{.*}}>(std::_Any_data&, {{.*}})' reached what it could not differentiate: {{.*}} at {{.*}}std_function.h:{{[0-9]+}}
#include <cmath>
#include <functional>

#include "check.h"

double __enzyme_autodiff(void *, ...);

// g copied, then called: sin(a t) at t = 0.5, 0.5 cos(a / 2)
static double copied(double a) {
  std::function<double(double)> g = [&](double t) { return std::sin(a * t); };
  std::function<double(double)> h = g;
  return h(0.5);
}

struct Scale {
  double k;
  double operator()(double t) const { return k * std::sin(t); }
};
struct Shifted : Scale {
  double *unused;
};

// k sin(0.5) with k = a: sin(0.5)
static double inherited(double a) {
  std::function<double(double)> g = Shifted{{a}, nullptr};
  std::function<double(double)> h = g;
  return h(0.5);
}

static double midpoint_sum(std::function<double(double)> f) {
  double s = 0;
  for (int i = 0; i < 10; i++)
    s += 0.1 * f((i + 0.5) * 0.1);
  return s;
}

// the functor passed by value, converted to a std::function on the way
static double inherited_by_value(double a) {
  Shifted s{{a}, nullptr};
  return midpoint_sum(s);
}

#ifdef UNTYPED
template <int N> struct ShiftedBy : Scale {
  double *unused;
};

static double untyped(double a) {
  std::function<double(double)> g = ShiftedBy<1>{{a}, nullptr};
  std::function<double(double)> h = g;
  return h(0.5);
}
#endif

int main() {
  check_close("copied", __enzyme_autodiff((void *)copied, 0.7), 0.5 * std::cos(0.35), 1e-12);
  check_close("inherited", __enzyme_autodiff((void *)inherited, 0.7), std::sin(0.5), 1e-12);
  double sum = 0;
  for (int i = 0; i < 10; i++)
    sum += 0.1 * std::sin((i + 0.5) * 0.1);
  check_close("inherited by value", __enzyme_autodiff((void *)inherited_by_value, 0.7), sum, 1e-12);
#ifdef UNTYPED
  check_close("untyped", __enzyme_autodiff((void *)untyped, 0.7), std::sin(0.5), 1e-12);
#endif
  return check_exit();
}
