// A catch block that carries on into the differentiated code is an error at
// the catch, in both modes: Kinase differentiates the normal path only.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -DREVERSE -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -DREVERSE -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <stdexcept>

extern "C" int enzyme_dup, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) static double root(double x) {
  if (x < 0)
    throw std::domain_error("negative");
  return __builtin_sqrt(x);
}

static double h(double x) {
  double y;
  try {
    y = root(x);
  } catch (const std::domain_error &) {
    y = 0;
  }
  return y * x;
}

#ifdef REVERSE
double test(double x) { return __enzyme_autodiff((void *)h, enzyme_out, x); }
#else
double test(double x) { return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0); }
#endif
// CHECK-NOT: Stack dump
// CHECK: exceptions-catch.cpp:25:{{[0-9]+}}: error: kinase: cannot differentiate 'h(double)': it catches an exception and carries on (a catch block that does not rethrow)
// CHECK: 1 error generated.
