// A call to an external function that has no derivative rule, with a
// differentiated argument, is an error located at the call.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

double ext(double);

static double h(double x) {
  // CHECK: {{.*}}external-function.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'h': external function 'ext' has no derivative rule and no body to differentiate{{$}}
  return ext(x) * 2.0;
}

double test(double x) { return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0); }
// CHECK: 1 error generated.
