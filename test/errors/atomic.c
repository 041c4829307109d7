// An atomic read-modify-write of differentiated memory other than an
// accumulation (atomic_exchange on an _Atomic double becomes atomicrmw xchg;
// atomic_fetch_add, atomicrmw fadd, differentiates: test/c/atomic-add.c).
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>
#include <stdatomic.h>

static double h(_Atomic double *p, double x) {
  // CHECK: {{.*}}atomic.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'h': it uses an atomic operation other than atomicAdd on differentiated memory
  return atomic_exchange(p, x);
}

double test(_Atomic double *p, _Atomic double *dp, double x) {
  return __enzyme_fwddiff((void *)h, enzyme_dup, p, dp, enzyme_dup, x, 1.0);
}
// CHECK: 1 error generated.
