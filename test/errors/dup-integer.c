// An integer parameter has no derivative: enzyme_dup and enzyme_dupnoneed
// on it are errors.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

static double h(double x, int n) { return x * n; }

double test(double x) {
  // CHECK: {{.*}}dup-integer.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'test': __enzyme_fwddiff: parameter 2 of 'h' is dup but is an integer, which has no derivative
  return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0, enzyme_dup, 3, 1);
}

double test_noneed(double x) {
  // CHECK: {{.*}}dup-integer.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'test_noneed': __enzyme_fwddiff: parameter 2 of 'h' is dupnoneed but is an integer, which has no derivative
  return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0, enzyme_dupnoneed, 3, 1);
}
// CHECK: 2 errors generated.
