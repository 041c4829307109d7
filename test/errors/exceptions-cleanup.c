// With -fexceptions, a C cleanup variable makes an invoke and a landing pad
// (the same IR as C++ exceptions): an error, never a crash.
// RUN: not %kinase-cc -fexceptions -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -fexceptions -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>

void release(double *p);
void note(void);

static double h(double x) {
  __attribute__((cleanup(release))) double y = x * x;
  note();
  return y;
}

double test(double x) { return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0); }
// CHECK-NOT: Stack dump
// CHECK: error: kinase: cannot differentiate 'h': it uses C++ exceptions
// CHECK: 1 error generated.
