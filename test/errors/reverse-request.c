// Errors in __enzyme_autodiff requests: activities that reverse mode cannot
// take, and a declared return type too small for the gradients.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

static double h(double x, double y, double z) { return x * y * z; }
static double hp(double *p, int n) { return p[0] * n; }

double test_out_pointer(double *p, int n) {
  // CHECK: {{.*}}reverse-request.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'test_out_pointer': __enzyme_autodiff: parameter 1 of 'hp' is enzyme_out but is not a floating-point value
  return __enzyme_autodiff((void *)hp, enzyme_out, p, n);
}

double test_dup_scalar(double x) {
  // CHECK: {{.*}}reverse-request.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'test_dup_scalar': __enzyme_autodiff: parameter 1 of 'h' is dup but is not a pointer: in reverse mode, pass a floating-point value as enzyme_out
  return __enzyme_autodiff((void *)h, enzyme_dup, x, 1.0, enzyme_out, x, enzyme_out, x);
}

/* Three active scalars: their gradients come back as a struct of three. */
double test_three_gradients(double x) {
  // CHECK: {{.*}}reverse-request.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'test_three_gradients': __enzyme_autodiff: the declared return type cannot hold the 3 gradients of 'h''s enzyme_out parameters
  return __enzyme_autodiff((void *)h, enzyme_out, x, enzyme_out, x, enzyme_out, x);
}
// CHECK: 3 errors generated.
