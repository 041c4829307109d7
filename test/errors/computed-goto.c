// A computed goto (an indirectbr through label addresses) is an error; the
// derivative must not jump to the labels of the user's function.
// The same for both modes: -DREVERSE asks for the reverse-mode derivative.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -DREVERSE -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -DREVERSE -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

static double h(double x, int i) {
  static void *labels[] = {&&square, &&same};
  // CHECK: {{.*}}computed-goto.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'h': it uses a computed goto (an indirect branch)
  goto *labels[i];
square:
  return x * x;
same:
  return x;
}

#ifdef REVERSE
double test(double x, int i) { return __enzyme_autodiff((void *)h, enzyme_out, x, i); }
#else
double test(double x, int i) { return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0, i); }
#endif
// CHECK: 1 error generated.
