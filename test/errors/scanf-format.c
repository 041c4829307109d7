// The scanf family with a format that is not a constant string: Kinase
// cannot tell which arguments receive floats, whose derivatives the numbers
// read must replace (rules/scanf.c).
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>
#include <stdio.h>

__attribute__((noinline)) double read_with(double x, const char *format) {
  double v = x;
  // CHECK: {{.*}}scanf-format.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'read_with': it calls sscanf with a format that is not a constant string (or has more than 64 conversions): Kinase cannot tell which arguments it stores numbers into
  sscanf("1.0", format, &v);
  return v * x;
}

double test(double x) { return __enzyme_autodiff((void *)read_with, x, enzyme_const, "%lf"); }
// CHECK: 1 error generated.
