// A global variable of pointer type has no shadow (what it points to may be
// set up outside any derivative): storing a pointer with a shadow into one
// is an error. (Globals holding floats get shadows: see
// test/c/enz-global-shadow.c.)
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

double *saved_ptr;

static double g(double *p) {
  // CHECK: {{.*}}store-global.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'g': it stores a differentiated value into global variable 'saved_ptr', which has no shadow
  saved_ptr = p;
  return *p;
}

double test_fwd(double *p, double *dp) { return __enzyme_fwddiff((void *)g, enzyme_dup, p, dp); }
// CHECK: 1 error generated.
