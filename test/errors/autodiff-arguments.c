// Mistakes in __enzyme_autodiff's arguments, as users make them: too few,
// too many, enzyme_out on a pointer, dup on a double, and a first argument
// that is not a function. Each is an error at the call, with its line, and
// the compile fails.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

static double f(double *x, double y) { return x[0] * y; }
double (*chosen)(double *, double) = f;

double too_few(double *x, double *dx) {
  // CHECK: {{.*}}autodiff-arguments.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'too_few': __enzyme_autodiff: 'f' has 2 parameters but the call ends at parameter 2 (out needs a value)
  return __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
}

double too_many(double *x, double *dx, double y) {
  // CHECK: {{.*}}autodiff-arguments.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'too_many': __enzyme_autodiff: 'f' has 2 parameters but the call passes 1 more argument
  return __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_out, y, y);
}

double out_pointer(double *x, double y) {
  // CHECK: {{.*}}autodiff-arguments.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'out_pointer': __enzyme_autodiff: parameter 1 of 'f' is enzyme_out but is not a floating-point value
  return __enzyme_autodiff((void *)f, enzyme_out, x, enzyme_out, y);
}

double dup_double(double *x, double *dx, double y) {
  // CHECK: {{.*}}autodiff-arguments.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'dup_double': __enzyme_autodiff: parameter 2 of 'f' is dup but is not a pointer: in reverse mode, pass a floating-point value as enzyme_out
  return __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, y, y);
}

double through_variable(double *x, double *dx, double y) {
  // CHECK: {{.*}}autodiff-arguments.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'through_variable': __enzyme_autodiff: the first argument must be a function, not a computed pointer
  return __enzyme_autodiff((void *)chosen, enzyme_dup, x, dx, y);
}

double data_pointer(double *x, double *dx, double y) {
  // CHECK: {{.*}}autodiff-arguments.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'data_pointer': __enzyme_autodiff: the first argument must be a function, not a computed pointer
  return __enzyme_autodiff((void *)x, enzyme_dup, x, dx, y);
}
// CHECK: 6 errors generated.
