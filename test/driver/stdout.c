// Output to standard output (-o -), piped on: IR (-S -emit-llvm), the
// preprocessed source (-E, with the driver's macros) and an object (-c). No
// runtime archive or link options may end up in any of them.
//
// RUN: %kinase-cc -S -emit-llvm -o - %s | FileCheck %s --check-prefix=IR
// RUN: %kinase-cc -E -o - %s | FileCheck %s --check-prefix=PP
// RUN: %kinase-cc -c -o - %s > %t.o
// RUN: llvm-nm %t.o | FileCheck %s --check-prefix=NM
// IR: define {{.*}} @gradient(
// IR-NOT: call {{.*}}@__enzyme_autodiff
// IR: define internal {{.*}} @__kinase_rev_square(
// PP: double __attribute__((annotate("enzyme_inactive"))) constant_helper(void);
// PP: return (2 * (x)) * __enzyme_autodiff((void *)square, x);
// NM: T gradient
#include <kinase.h>

#define TWICE(x) (2 * (x))

double __attribute__((enzyme_inactive)) constant_helper(void);

static double square(double x) { return x * x; }

double gradient(double x) {
  return TWICE(x) * __enzyme_autodiff((void *)square, x);
}
