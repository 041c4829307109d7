// Enzyme's split mode (__enzyme_augmentfwd / __enzyme_reverse) and batch
// mode (enzyme_width) are not supported yet: a located error at the call,
// not an undefined symbol at link time.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
extern int enzyme_width, enzyme_dup;
void *__enzyme_augmentfwd(void *, ...);
double __enzyme_fwddiff(void *, ...);

static double sq(double x) { return x * x; }

void *split(double x) {
  // CHECK: {{.*}}split-batch-modes.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'split': __enzyme_augmentfwd is not supported yet
  return __enzyme_augmentfwd((void *)sq, x);
}

double batch(double x, double dx1, double dx2) {
  // CHECK: {{.*}}split-batch-modes.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: in function 'batch': __enzyme_fwddiff: marker 'enzyme_width' (Enzyme's batch or split mode) is not supported yet
  return __enzyme_fwddiff((void *)sq, enzyme_width, 2, enzyme_dup, x, dx1, dx2);
}
// CHECK: 2 errors generated.
