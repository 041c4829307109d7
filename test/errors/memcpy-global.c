// Copying differentiated memory into a global variable, which has no
// shadow, loses the derivative: an error like a store of a differentiated
// value into a global.
// The same for both modes: -DREVERSE asks for the reverse-mode derivative.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -DREVERSE -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -DREVERSE -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>
#include <string.h>

double saved[10];

static double h(double *p) {
  // CHECK: {{.*}}memcpy-global.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'h': {{.*}}global variable 'saved'
  memcpy(saved, p, sizeof saved);
  return saved[3] * 2.0;
}

#ifdef REVERSE
double test(double *p, double *dp) { return __enzyme_autodiff((void *)h, enzyme_dup, p, dp); }
#else
double test(double *p, double *dp) { return __enzyme_fwddiff((void *)h, enzyme_dup, p, dp); }
#endif
// CHECK: 1 error generated.
