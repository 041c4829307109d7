// The first argument of __enzyme_fwddiff must name a function.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

double table[4];

double test_pointer(void *fn, double x) {
  // CHECK: {{.*}}not-a-function.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'test_pointer': __enzyme_fwddiff: the first argument must be a function, not a computed pointer
  return __enzyme_fwddiff(fn, enzyme_dup, x, 1.0);
}

double test_global(double x) {
  // CHECK: {{.*}}not-a-function.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'test_global': __enzyme_fwddiff: the first argument must be a function, not a constant
  return __enzyme_fwddiff((void *)table, enzyme_dup, x, 1.0);
}
// CHECK: 2 errors generated.
