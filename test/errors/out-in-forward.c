// enzyme_out is a reverse-mode marker.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

static double h(double x) { return x * x; }

double test(double x) {
  // CHECK: {{.*}}out-in-forward.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'test': __enzyme_fwddiff: enzyme_out (parameter 1 of 'h') is a reverse-mode marker; use enzyme_dup in forward mode
  return __enzyme_fwddiff((void *)h, enzyme_out, x);
}
// CHECK: 1 error generated.
