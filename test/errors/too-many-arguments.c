// Arguments left over after every parameter of the function has its
// arguments.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

static double h(double x) { return x * x; }

double test(double x) {
  // CHECK: {{.*}}too-many-arguments.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'test': __enzyme_fwddiff: 'h' has 1 parameter but the call passes 1 more argument{{$}}
  return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0, 2.0);
}

double test_two(double x) {
  // CHECK: {{.*}}too-many-arguments.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'test_two': __enzyme_fwddiff: 'h' has 1 parameter but the call passes 2 more arguments{{$}}
  return __enzyme_fwddiff((void *)h, enzyme_const, x, enzyme_const, x);
}
// CHECK: 2 errors generated.
