// Inline assembly in a differentiated function is an error.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

static double h(double x) {
  double y;
  // CHECK: {{.*}}inline-asm.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'h': it contains inline assembly
  __asm__("movsd %1, %0" : "=x"(y) : "x"(x));
  return y * x;
}

double test(double x) { return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0); }
// CHECK: 1 error generated.
