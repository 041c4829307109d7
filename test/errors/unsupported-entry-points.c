// Enzyme entry points and markers Kinase lacks: a located error at the call,
// saying what it asks for, not an undefined symbol at link time.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
extern int enzyme_dup, enzyme_primal_return;
double __enzyme_fwddiff(void *, ...);
int __enzyme_augmentsize(void *, ...);
void __enzyme_fwdsplit(void *, ...);

static double sq(double x) { return x * x; }

int tape_size(void) {
  // CHECK-DAG: {{.*}}unsupported-entry-points.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'tape_size': __enzyme_augmentsize is not supported yet (Kinase has __enzyme_autodiff, __enzyme_fwddiff, __enzyme_augmentfwd, __enzyme_reverse and __enzyme_batch)
  return __enzyme_augmentsize((void *)sq, enzyme_dup);
}

void split_forward(double x, double dx) {
  // CHECK-DAG: {{.*}}unsupported-entry-points.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'split_forward': __enzyme_fwdsplit is not supported yet
  __enzyme_fwdsplit((void *)sq, enzyme_dup, x, dx);
}

double with_primal(double x, double dx) {
  // CHECK-DAG: {{.*}}unsupported-entry-points.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'with_primal': __enzyme_fwddiff: marker 'enzyme_primal_return' (the primal result returned with the derivative) is not supported yet
  return __enzyme_fwddiff((void *)sq, enzyme_primal_return, enzyme_dup, x, dx);
}
// CHECK: 3 errors generated.
