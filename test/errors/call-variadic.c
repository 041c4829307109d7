// A differentiated function that passes a differentiated value to a
// variadic function of its own module, for targets other than x86-64 with
// System V's va_list (aarch64, Windows), which Kinase does not lay variable
// arguments out for (analysis/variadic.c; x86-64: test/c/rev-variadic.c).
// RUN: not %kinase-cc -g -O0 --target=aarch64-linux-gnu -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 --target=aarch64-linux-gnu -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O0 --target=x86_64-pc-windows-msvc -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>
#include <stdarg.h>

static double sum(int n, ...) {
  va_list ap;
  va_start(ap, n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += va_arg(ap, double);
  va_end(ap);
  return s;
}

static double h(double x) {
  // CHECK: {{.*}}call-variadic.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'h': it calls variadic or very long function 'sum'
  return sum(2, x, x * x);
}

double test(double x) { return __enzyme_fwddiff((void *)h, enzyme_dup, x, 1.0); }
// CHECK: 1 error generated.
