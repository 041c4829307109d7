// A global variable has no shadow: storing a differentiated value (a float
// or a pointer with a shadow) into one is an error.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

double saved;
double *saved_ptr;

static double h(double x) {
  // CHECK: {{.*}}store-global.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'h': it stores a differentiated value into global variable 'saved', which has no shadow
  saved = x * x;
  return x;
}

static double g(double *p) {
  // CHECK: {{.*}}store-global.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'g': it stores a differentiated value into global variable 'saved_ptr', which has no shadow
  saved_ptr = p;
  return *p;
}

double test(double x) { return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0); }
double test_ptr(double *p, double *dp) { return __enzyme_fwddiff((void *)g, enzyme_dup, p, dp); }
// CHECK: 2 errors generated.
