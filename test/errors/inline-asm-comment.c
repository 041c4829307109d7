// Inline assembly with a comment line and an instruction is not a comment:
// still an error (test/c/asm-comment.c has the comments that pass).
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

static double h(double x) {
  // CHECK: {{.*}}inline-asm-comment.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'h': it contains inline assembly
  __asm__ volatile("# a comment\n\tmfence");
  return x * x;
}

double test(double x) { return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0); }
// CHECK: 1 error generated.
