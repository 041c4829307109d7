// Kinase differentiates functions of at most 64 parameters.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

#define P8(k) double x##k##0, double x##k##1, double x##k##2, double x##k##3, \
              double x##k##4, double x##k##5, double x##k##6, double x##k##7
#define A8 x, x, x, x, x, x, x, x

static double h(P8(0), P8(1), P8(2), P8(3), P8(4), P8(5), P8(6), P8(7), double last) {
  return x00 * last;
}

double test(double x) {
  // CHECK: {{.*}}too-many-parameters.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'test': __enzyme_fwddiff: 'h' has more than 64 parameters
  return __enzyme_fwddiff((void *)h, A8, A8, A8, A8, A8, A8, A8, A8, x);
}
// CHECK: 1 error generated.
