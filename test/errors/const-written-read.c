// A differentiated value stored into memory an enzyme_const pointer points
// to, then read back: the memory has no shadow, so the derivative would
// vanish between the store and the load. An error at the store, in both
// modes; a buffer that is only written (an output nobody differentiates)
// is fine (test/c/rev-mixed-activity-call.c).
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

static double staged(const double *x, double *scratch, int n) {
  for (int i = 0; i < n; i++)
    // CHECK: {{.*}}const-written-read.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'staged': it stores a differentiated value into memory that an enzyme_const pointer parameter points to, and reads it back: that memory has no shadow to carry the derivative; pass the parameter as enzyme_dup with a shadow buffer
    scratch[i] = x[i] * x[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += scratch[i] * x[i];
  return s;
}

void reverse(const double *x, double *dx, double *scratch) {
  __enzyme_autodiff((void *)staged, enzyme_dup, x, dx, enzyme_const, scratch, enzyme_const, 3);
}

double forward(const double *x, const double *tx, double *scratch) {
  return __enzyme_fwddiff((void *)staged, enzyme_dup, x, tx, enzyme_const, scratch, enzyme_const, 3);
}
// CHECK: 1 error generated.
