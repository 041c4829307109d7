// The call ends before every parameter of the function has its arguments:
// the error is located at the __enzyme_fwddiff call.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

static double h(double x, double y) { return x * y; }

double test(double x) {
  // CHECK: {{.*}}too-few-arguments.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'test': __enzyme_fwddiff: 'h' has 2 parameters but the call ends at parameter 2 (dup needs a value and its shadow)
  return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0);
}

/* A dup marker with its value but no shadow. */
double test_shadow(double x) {
  // CHECK: {{.*}}too-few-arguments.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'test_shadow': __enzyme_fwddiff: 'h' has 2 parameters but the call ends at parameter 2 (dup needs a value and its shadow)
  return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0, enzyme_dup, x);
}

/* An enzyme_const marker with no value. */
double test_const(double x) {
  // CHECK: {{.*}}too-few-arguments.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'test_const': __enzyme_fwddiff: 'h' has 2 parameters but the call ends at parameter 2 (const needs a value)
  return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0, enzyme_const);
}
// CHECK: 3 errors generated.
