// A call through a function pointer with a differentiated argument: the
// callee is unknown at compile time.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

double (*fp)(double);

static double h(double x) {
  // CHECK: {{.*}}indirect-call.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'h': it makes an indirect call with differentiated arguments
  return fp(x) + x;
}

double test(double x) { return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0); }
// CHECK: 1 error generated.
