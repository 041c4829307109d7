// asm goto is inline assembly that branches: an error like any inline
// assembly, even when it ends its block (a callbr terminator).
// The same for both modes: -DREVERSE asks for the reverse-mode derivative.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -DREVERSE -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -DREVERSE -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

static double h(double x) {
  double y;
  // CHECK: {{.*}}asm-goto.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'h': it contains asm goto
  asm goto("movsd %1, %0" : "=x"(y) : "x"(x) : : out);
  return y * 2.0;
out:
  return y;
}

#ifdef REVERSE
double test(double x) { return __enzyme_autodiff((void *)h, enzyme_out, x); }
#else
double test(double x) { return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0); }
#endif
// CHECK: 1 error generated.
