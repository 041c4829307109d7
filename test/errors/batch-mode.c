// Enzyme's batch mode (enzyme_width) and __enzyme_batch are not supported
// yet, nor enzyme_primal_return: a located error at the call, saying what
// the marker asks for, not an undefined symbol at link time.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
extern int enzyme_width, enzyme_dup, enzyme_primal_return;
double __enzyme_fwddiff(void *, ...);
double __enzyme_batch(void *, ...);

static double sq(double x) { return x * x; }

double batch(double x, double dx1, double dx2) {
  // CHECK-DAG: {{.*}}batch-mode.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'batch': __enzyme_fwddiff: marker 'enzyme_width' (Enzyme's batch mode) is not supported yet
  return __enzyme_fwddiff((void *)sq, enzyme_width, 2, enzyme_dup, x, dx1, dx2);
}

double batch_entry(double x) {
  // CHECK-DAG: {{.*}}batch-mode.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'batch_entry': __enzyme_batch is not supported yet
  return __enzyme_batch((void *)sq, x);
}

double with_primal(double x, double dx) {
  // CHECK-DAG: {{.*}}batch-mode.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'with_primal': __enzyme_fwddiff: marker 'enzyme_primal_return' (the primal result returned with the derivative) is not supported yet
  return __enzyme_fwddiff((void *)sq, enzyme_primal_return, enzyme_dup, x, dx);
}
// CHECK: 3 errors generated.
