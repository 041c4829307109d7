// Two stores of pointers into a global of pointer type, merged into one by the simplification Kinase
// runs before differentiating (the merged store has line 0): the error must
// still name one of the user's lines, never line 0.
// The same for both modes: -DREVERSE asks for the reverse-mode derivative.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -DREVERSE -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -DREVERSE -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

double *saved;

static double h(double *x, int c) {
  if (c)
    saved = x;     // line 15
  else
    saved = x + 1; // line 17
  return *x;
}

#ifdef REVERSE
double test(double *x, double *dx, int c) { return __enzyme_autodiff((void *)h, enzyme_dup, x, dx, c); }
#else
double test(double *x, double *dx, int c) { return __enzyme_fwddiff((void *)h, enzyme_dup, x, dx, c); }
#endif
// CHECK: {{.*}}store-global-merged.c:{{14|15|17}}:{{[0-9]+}}: error: kinase: cannot differentiate 'h': it stores a differentiated value into global variable 'saved', which has no shadow
// CHECK-NOT: could not determine the original source location
// CHECK: 1 error generated.
