// Reverse mode over a function that itself computes a gradient is not
// supported yet: a located error naming the way that works (forward mode
// over the gradient), never a derivative that reads through a null tape.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

static double cube(double x) { return x * x * x; }

double dcube(double x) {
  // CHECK: {{.*}}reverse-over-reverse.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'dcube': it computes a gradient (__enzyme_autodiff) itself: reverse mode over reverse mode is not supported yet; differentiate the gradient in forward mode (__enzyme_fwddiff)
  return __enzyme_autodiff((void *)cube, enzyme_out, x);
}

double second(double x) { return __enzyme_autodiff((void *)dcube, enzyme_out, x); }
// Forward over reverse is fine:
double second_fwd(double x) { return __enzyme_fwddiff((void *)dcube, enzyme_dup, x, 1.0); }
// CHECK: 1 error generated.
