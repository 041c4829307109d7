// Every failing request is reported, not only the first, and each function
// that cannot be differentiated once.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

double ext(double);

static double h(double x) {
  // CHECK-DAG: {{.*}}several-errors.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'h': external function 'ext'
  return ext(x);
}

static double ok(double x) { return x * x; }

double test(double x) {
  double a = __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0);
  // CHECK-DAG: {{.*}}several-errors.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'test': __enzyme_fwddiff: 'ok' has 1 parameter but the call passes 1 more argument
  double b = __enzyme_fwddiff((void *)ok, enzyme_dup, x, 1.0, x);
  double c = __enzyme_fwddiff((void *)h, enzyme_dup, x, 2.0);
  double d = __enzyme_fwddiff((void *)ok, enzyme_dup, x, 1.0);
  return a + b + c + d;
}
// CHECK-NOT: error:
// CHECK: 2 errors generated.
