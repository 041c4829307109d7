// A scalar of another kind where a shadow pointer or a float belongs: a
// struct passed by value is a pointer (byval), so unmarked it is dup and
// takes the next argument, here a double, as its shadow. The double was
// once reinterpreted as the shadow's address (a crash at run time); a
// pointer for a double was reinterpreted likewise.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

typedef struct {
  double a[6];
  int n;
} Big;

double weigh(Big b, double x) {
  double s = 0;
  for (int i = 0; i < b.n; i++)
    s += b.a[i] * x;
  return s;
}

static double square(double x) { return x * x; }

double test(Big b, double x, double *p) {
  // CHECK: {{.*}}shadow-type.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'test': __enzyme_autodiff: the shadow for parameter 1 of 'weigh' does not match its type (a floating-point number where it takes a pointer)
  double g = __enzyme_autodiff((void *)weigh, b, x, 0.5);
  // CHECK: {{.*}}shadow-type.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'test': __enzyme_fwddiff: the shadow for parameter 1 of 'square' does not match its type (a pointer where it takes a floating-point number)
  return g + __enzyme_fwddiff((void *)square, x, p);
}
// CHECK: 2 errors generated.
