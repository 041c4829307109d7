// An entry point kept in a function pointer and called through it is a
// request Kinase cannot see: the program used to fail to link, on
// __enzyme_autodiff and the markers. The error names the line where the
// address is taken; a cast called at once is a direct call and works.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

typedef struct {
  double da, db;
} Grad2;
typedef Grad2 (*grad2_fn)(void *, ...);

static double f(double a, double b) { return a * b * b; }

double both(double a, double b) {
  // CHECK: entry-address-taken.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'both': the address of __enzyme_autodiff is taken: Kinase finds requests by their calls, so call it directly
  grad2_fn grad = (grad2_fn)__enzyme_autodiff;
  Grad2 g = grad((void *)f, enzyme_out, a, enzyme_out, b);
  return g.da + g.db;
}

double direct(double a, double b) {
  // CHECK-NOT: entry-address-taken.c:[[@LINE+1]]
  Grad2 g = ((grad2_fn)__enzyme_autodiff)((void *)f, enzyme_out, a, enzyme_out, b);
  return g.da + g.db;
}
