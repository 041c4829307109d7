// With -fexceptions, a C cleanup variable makes an invoke and a landing pad
// (the same IR as C++ exceptions): an error, never a crash.
// The same for both modes: -DREVERSE asks for the reverse-mode derivative.
// RUN: not %kinase-cc -fexceptions -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -fexceptions -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -DREVERSE -fexceptions -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -DREVERSE -fexceptions -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

void release(double *p);
void note(void);

static double h(double x) {
  __attribute__((cleanup(release))) double y = x * x;
  note();
  return y;
}

#ifdef REVERSE
double test(double x) { return __enzyme_autodiff((void *)h, enzyme_out, x); }
#else
double test(double x) { return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0); }
#endif
// CHECK-NOT: Stack dump
// CHECK: error: kinase: cannot differentiate 'h': it uses exceptions (invoke, landing pads or cleanups)
// CHECK: 1 error generated.
