// setjmp and longjmp jump outside the control flow Kinase differentiates:
// an error in both modes, at the call.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -DREVERSE -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>
#include <setjmp.h>

static jmp_buf env;

static double h(double x) {
  // CHECK: {{.*}}setjmp.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'h': it uses setjmp or longjmp
  if (setjmp(env))
    return x;
  return x * x;
}

#ifdef REVERSE
double test(double x) { return __enzyme_autodiff((void *)h, enzyme_out, x); }
#else
double test(double x) { return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0); }
#endif
// CHECK: 1 error generated.
