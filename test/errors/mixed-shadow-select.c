// A pointer that is either a dup argument (with a shadow) or an
// enzyme_const one (without): its shadow does not exist on every path. A
// load through it is one load per path (test/c/fuzz-regress-3.c); a store
// through it, or a call given it, is refused at the choice.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

static double h(double *a, double *b, int c) {
  // CHECK: {{.*}}mixed-shadow-select.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'h': a pointer here may point either to memory with a shadow (a dup argument or local memory) or to memory without one (an enzyme_const argument); give both the same activity
  double *p = c ? a : b;
  double loaded = *p;
  *p = loaded * a[1];
  return a[0] * loaded;
}

double test(double *a, double *da, double *b, int c) {
  return __enzyme_fwddiff((void *)h, enzyme_dup, a, da, enzyme_const, b, c);
}
// CHECK: 1 error generated.
