// A call through a function pointer that may reach more functions than
// Kinase compares the pointer with (16): the error says so, and how many.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

#define F(n) static double f##n(double x) { return x * n; }
F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11) F(12) F(13) F(14) F(15) F(16) F(17)

double (*table[])(double) = {f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17};

static double h(double x, int k) {
  // CHECK: {{.*}}indirect-call-many-candidates.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'h': it makes an indirect call with differentiated arguments: it may reach any of 17 functions of its type, more than the 16 Kinase compares the pointer with
  return table[k](x) + x;
}

double test(double x, int k) { return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0, enzyme_const, k); }
// CHECK: 1 error generated.
