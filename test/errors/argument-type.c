// An argument whose type cannot be converted to its parameter's (a long
// double for an int).
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

static double h(int n) { return n; }

double test(long double x) {
  // CHECK: {{.*}}argument-type.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'test': __enzyme_fwddiff: argument for parameter 1 of 'h' does not match its type
  return __enzyme_fwddiff((void *)h, x);
}
// CHECK: 1 error generated.
