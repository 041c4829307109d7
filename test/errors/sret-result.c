// A function returning a struct too large for registers takes a hidden
// result pointer (sret). Forward mode delivers its tangent through a
// request declared to return the same struct (test/c/rev-struct-return.c);
// reverse mode, or a request declared otherwise, is an error at the call.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

struct quad { double a, b, c, d; };
static struct quad expand(double x) { return (struct quad){x, x * x, x * x * x, 1 / x}; }

double reverse(double x) {
  // CHECK: {{.*}}sret-result.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'reverse': __enzyme_autodiff: 'expand' returns a struct through a hidden pointer (sret): reverse mode needs a floating-point result; differentiate a function that stores the struct through an enzyme_dup pointer parameter instead
  return __enzyme_autodiff((void *)expand, x);
}

double forward_as_double(double x) {
  // CHECK: {{.*}}sret-result.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'forward_as_double': __enzyme_fwddiff: 'expand' returns a struct through a hidden pointer (sret): declare __enzyme_fwddiff returning the same struct to receive its tangent
  return __enzyme_fwddiff((void *)expand, x, 1.0);
}
// CHECK: 2 errors generated.
