// Memory returned by a function Kinase cannot see into has no shadow:
// storing a differentiated value there would lose its derivative unseen, so
// it is an error naming the function.
// The same for both modes: -DREVERSE asks for the reverse-mode derivative.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -DREVERSE -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -DREVERSE -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

double *pool_get(int n);

static double h(double x) {
  double *p = pool_get(2);
  // CHECK: {{.*}}store-unknown-memory.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'h': it stores a differentiated value into memory returned by 'pool_get', which has no shadow: Kinase sees no allocation there
  p[0] = x * x;
  return p[0] + p[1];
}

#ifdef REVERSE
double test(double x) { return __enzyme_autodiff((void *)h, enzyme_out, x); }
#else
double test(double x) { return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0); }
#endif
// CHECK: 1 error generated.
