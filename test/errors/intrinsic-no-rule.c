// An LLVM intrinsic with no derivative rule (__builtin_canonicalize becomes
// llvm.canonicalize) applied to a differentiated value.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

static double h(double x) {
  // CHECK: {{.*}}intrinsic-no-rule.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'h': intrinsic 'llvm.canonicalize.f64' has no derivative rule{{$}}
  return __builtin_canonicalize(x) * x;
}

double test(double x) { return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0); }
// CHECK: 1 error generated.
