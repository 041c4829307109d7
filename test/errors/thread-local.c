// A differentiated value stored into a _Thread_local global, which clang
// reaches through llvm.threadlocal.address: it has no shadow. The message
// names the variable, not the intrinsic. Both modes.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

static _Thread_local double total;

__attribute__((noinline)) static double accumulate(double x) {
  // CHECK: {{.*}}thread-local.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'accumulate': it stores a differentiated value into thread-local variable 'total', which has no shadow (Kinase gives _Thread_local globals none): make it an ordinary global or a local
  total = x * x;
  return 2 * total;
}

double test(double x) { return __enzyme_autodiff((void *)accumulate, x) + __enzyme_fwddiff((void *)accumulate, x, 1.0); }
// CHECK: 1 error generated.
