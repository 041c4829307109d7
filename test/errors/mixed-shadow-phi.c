// A pointer that is either a dup argument or a global variable, merged by
// control flow (a phi): the global has no shadow.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

double k = 3.0;

static double h(double *a, int c) {
  double *p = a;
  // CHECK: {{.*}}mixed-shadow-phi.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'h': a pointer here may point either to memory with a shadow (a dup argument or local memory) or to memory without one (a global or constant); give both the same activity
  if (c)
    p = &k;
  return *p * 2.0;
}

double test(double *a, double *da, int c) { return __enzyme_fwddiff((void *)h, enzyme_dup, a, da, c); }
// CHECK: 1 error generated.
