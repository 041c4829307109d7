// A derivative that runs a copy of bytes Kinase cannot type (a std::function
// copied at -O0: its manager moves the functor, which holds a pointer to a
// differentiated local, through a char buffer) stops with the reason and
// the source line, instead of giving a gradient without that pointer's
// shadow. At -O2 the copy is inlined, typed, and differentiated.
// RUN: %kinase-cxx -O0 -g %testinc %s -o %t.O0
// RUN: not --crash %t.O0 2>&1 | FileCheck %s
// RUN: %kinase-cxx -O2 %testinc %s -o %t.O2
// RUN: %t.O2
// CHECK: kinase: the derivative of '{{.*}}std::_Function_base::_Base_manager<{{.*}}>::_M_create<{{.*}}>(std::_Any_data&, {{.*}})' reached what it could not differentiate: it copies 8 bytes whose type Kinase cannot decide (floats, pointers or integers); copy them as their own type at {{.*}}std_function.h:{{[0-9]+}}
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

int main() {
  check_close("copied", __enzyme_autodiff((void *)copied, 0.7), 0.5 * std::cos(0.35), 1e-12);
  return check_exit();
}
