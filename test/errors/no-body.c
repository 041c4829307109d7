// A function declared but not defined in this translation unit has no body
// to differentiate.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

double h(double x);

double test(double x) {
  // CHECK: {{.*}}no-body.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'test': __enzyme_fwddiff: 'h' has no body in this module to differentiate
  return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0);
}
// CHECK: 1 error generated.
