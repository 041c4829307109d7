// Reverse mode reports what it cannot differentiate in the user's function
// the way forward mode does, at the offending line.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>
#include <stdatomic.h>

double ext(double);
double (*fp)(double);
double *saved;

static double h_ext(double x) {
  // CHECK-DAG: {{.*}}reverse-function.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'h_ext': external function 'ext' has no derivative rule and no body to differentiate
  return ext(x);
}

static double h_indirect(double x) {
  // CHECK-DAG: {{.*}}reverse-function.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'h_indirect': it makes an indirect call with differentiated arguments
  return fp(x);
}

static double h_asm(double x) {
  double y;
  // CHECK-DAG: {{.*}}reverse-function.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'h_asm': it contains inline assembly
  __asm__("movsd %1, %0" : "=x"(y) : "x"(x));
  return y * x;
}

static double h_global(double *p) {
  // CHECK-DAG: {{.*}}reverse-function.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'h_global': it stores a differentiated value into global variable 'saved', which has no shadow
  saved = p;
  return *p;
}

static double h_atomic(_Atomic double *p, double x) {
  // CHECK-DAG: {{.*}}reverse-function.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'h_atomic': it uses an atomic operation other than atomicAdd on differentiated memory
  return atomic_exchange(p, x);
}

/* A load through such a pointer is one load per path (test/c/fuzz-regress-3.c);
 * a store through it is refused. */
static double h_mixed(double *a, double *b, int c) {
  // CHECK-DAG: {{.*}}reverse-function.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'h_mixed': a pointer here may point either to memory with a shadow (a dup argument or local memory) or to memory without one (an enzyme_const argument); give both the same activity
  double *p = c ? a : b;
  *p = a[1] * a[1];
  return a[0] * 2.0;
}

double t1(double x) { return __enzyme_autodiff((void *)h_ext, enzyme_out, x); }
double t2(double x) { return __enzyme_autodiff((void *)h_indirect, enzyme_out, x); }
double t3(double x) { return __enzyme_autodiff((void *)h_asm, enzyme_out, x); }
double t4(double *p, double *dp) { return __enzyme_autodiff((void *)h_global, enzyme_dup, p, dp); }
double t5(_Atomic double *p, _Atomic double *dp, double x) {
  return __enzyme_autodiff((void *)h_atomic, enzyme_dup, p, dp, enzyme_out, x);
}
double t6(double *a, double *da, double *b, int c) {
  return __enzyme_autodiff((void *)h_mixed, enzyme_dup, a, da, enzyme_const, b, c);
}
// CHECK-NOT: error:
// CHECK: 6 errors generated.
