// Diagnostics name C++ functions as the source does, demangled, wherever
// the name appears in the message (the function differentiated, the function
// holding a request, a callee), never as clang's mangled symbol.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NODEBUG
#include <kinase.h>

namespace physics {
double potential(double r); // no body, no rule

struct Model {
  double k;
  double energy(const double *x) const { return k * potential(x[0]); }
};
} // namespace physics

static double model_energy(const physics::Model *m, const double *x) { return m->energy(x); }

double gradient(const physics::Model *m, const double *x, double *dx) {
  // CHECK-DAG: demangled-names.cpp:{{[0-9]+}}:{{[0-9]+}}: error: kinase: cannot differentiate 'physics::Model::energy(double const*) const': external function 'physics::potential(double)' has no derivative rule and no body to differentiate{{$}}
  // NODEBUG-DAG: error: kinase: cannot differentiate 'physics::Model::energy(double const*) const': external function 'physics::potential(double)' has no derivative rule
  return __enzyme_autodiff((void *)model_energy, enzyme_const, m, enzyme_dup, x, dx);
}

extern "C" void __enzyme_augmentfwd(void *, ...);
template <typename T> T square(T y) { return y * y; }
template <typename T> void *tape_of(T x) {
  // CHECK-DAG: error: kinase: in function 'void* tape_of<double>(double)': __enzyme_augmentfwd: the tape is lost
  __enzyme_augmentfwd((void *)square<T>, x);
  return nullptr;
}
void *use = tape_of(2.0);
// CHECK-NOT: '_Z
// NODEBUG-DAG: error: kinase: in function 'void* tape_of<double>(double)'
// NODEBUG-NOT: '_Z
