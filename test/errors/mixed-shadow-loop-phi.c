// A loop-carried pointer that starts as a dup argument and becomes an
// enzyme_const one: a phi that merges them, which has no source line of its
// own. The error must still point into the loop (the use or the assignment
// of p), never at line 0.
// The same for both modes: -DREVERSE asks for the reverse-mode derivative.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -DREVERSE -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -DREVERSE -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

static double h(double *a, double *b, int n) {
  double *p = a;
  double s = 0;
  for (int i = 0; i < n; i++) { // line 15
    s += *p;                    // line 16
    p = b;                      // line 17
  }
  return s;
}

double test(double *a, double *da, double *b, int n) {
#ifdef REVERSE
  return __enzyme_autodiff((void *)h, enzyme_dup, a, da, enzyme_const, b, n);
#else
  return __enzyme_fwddiff((void *)h, enzyme_dup, a, da, enzyme_const, b, n);
#endif
}
// CHECK: {{.*}}mixed-shadow-loop-phi.c:{{15|16|17}}:{{[0-9]+}}: error: kinase: cannot differentiate 'h': a pointer here may point either to memory with a shadow (a dup argument or local memory) or to memory without one (an enzyme_const argument); give both the same activity
// CHECK-NOT: could not determine the original source location
// CHECK: 1 error generated.
