// A std::function copied (a named one passed by value, or assigned to
// another): its manager's clone case copies the functor out of the
// `_Any_data` it is held in, through a reference to the functor's class
// (`_M_create<F const&>`), reached only through the manager's pointer.
// The class's type comes from its member functions (the lambda's
// operator() addresses its captures through `this`), so the copy moves the
// captured pointer's shadow at -O0 too, where it stopped the program
// before ("it copies 8 bytes whose type Kinase cannot decide").
// A functor whose class has no member function of its own in the module
// (here one deriving its operator() from a base) still has no type there:
// that copy stops the program where it runs, with the reason and the line.
// RUN: %check-c %s %t -std=c++17
// RUN: %kinase-cxx -O2 -g -DUNTYPED %testinc %s -o %t.untyped
// RUN: not --crash %t.untyped 2>&1 | FileCheck %s
// CHECK: kinase: the derivative of '{{.*}}std::_Function_base::_Base_manager<Shifted>::_M_create<{{.*}}>(std::_Any_data&, {{.*}})' reached what it could not differentiate: {{.*}} at {{.*}}std_function.h:{{[0-9]+}}
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

#ifdef UNTYPED
struct Scale {
  double k;
  double operator()(double t) const { return k * std::sin(t); }
};
struct Shifted : Scale {
  double *unused;
};

// k sin(0.5) with k = a: sin(0.5)
static double untyped(double a) {
  std::function<double(double)> g = Shifted{{a}, nullptr};
  std::function<double(double)> h = g;
  return h(0.5);
}
#endif

int main() {
  check_close("copied", __enzyme_autodiff((void *)copied, 0.7), 0.5 * std::cos(0.35), 1e-12);
#ifdef UNTYPED
  check_close("untyped", __enzyme_autodiff((void *)untyped, 0.7), std::sin(0.5), 1e-12);
#endif
  return check_exit();
}
