// A variadic function cannot be differentiated: its differentiated
// arguments are not known from its parameters.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

static double h(double x, ...) { return x * x; }

double test(double x) {
  // CHECK: {{.*}}variadic.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'test': __enzyme_fwddiff: 'h' is variadic
  return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0);
}
// CHECK: 1 error generated.
