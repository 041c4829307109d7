// Reverse mode must move the adjoints of a copy element by element, so it
// needs the type of what is copied. Here nothing in the function says
// whether the bytes are doubles, floats or integers: an error naming the
// copy, never a guess.
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>
#include <string.h>

static void copy(void *dst, const void *src, int n) {
  // CHECK: {{.*}}copy-type-unknown.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'copy': it copies memory (memcpy) whose element type Kinase cannot decide
  memcpy(dst, src, (size_t)n * 8);
}

void test(double *y, double *dy, const double *x, double *dx, int n) {
  __enzyme_autodiff((void *)copy, enzyme_dup, y, dy, enzyme_dup, x, dx, enzyme_const, n);
}
// CHECK: 1 error generated.
