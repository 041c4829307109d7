// The program declares __enzyme_fwddiff with a return type that cannot hold
// the derivative of the function's result.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
extern int enzyme_dup;
int __enzyme_fwddiff(void *, ...);

static double h(double x) { return x * x; }

int test(double x) {
  // CHECK: {{.*}}return-type.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'test': __enzyme_fwddiff: the declared return type cannot hold the derivative of 'h''s result
  return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0);
}
// CHECK: 1 error generated.
