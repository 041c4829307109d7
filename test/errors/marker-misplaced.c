// A marker where the value or the shadow of a parameter is expected.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

static double h(double x) { return x * x; }

double test_shadow(double x) {
  // CHECK: {{.*}}marker-misplaced.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'test_shadow': __enzyme_fwddiff: a marker stands where parameter 1 of 'h' expects a shadow
  return __enzyme_fwddiff((void *)h, enzyme_dup, x, enzyme_const);
}

double test_value(void) {
  // CHECK: {{.*}}marker-misplaced.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'test_value': __enzyme_fwddiff: a marker stands where parameter 1 of 'h' expects a value
  return __enzyme_fwddiff((void *)h, enzyme_dup, enzyme_const, 1.0);
}
// CHECK: 2 errors generated.
