// RUN: %check-c %s %t
// RUN: %kinase-cc -O0 %testinc -S -emit-llvm %s -o - | FileCheck %s
// A function that ends by storing its result through a pointer (needed:
// enzyme_dup) after a loop over its inputs. At a request's top level the
// store is made after the reverse sweep (lib/reverse/final.c), so the loop's
// loads are repeated there instead of recorded: the pair keeps no tape. The
// result may be one of the inputs (out == &x[0]): the sweep still sees x as
// the loop read it.
//
// The pair keeps no tape, and the result is stored (through out, the first
// parameter) as the reverse sweep returns:
// CHECK-LABEL: define internal {{.*}}@__kinase_rev_dot3(ptr %0,
// CHECK-NOT:   {{malloc|realloc}}
// CHECK:       store double %{{[0-9]+}}, ptr %0
// CHECK-NEXT:  ret void
// CHECK-NOT:   {{malloc|realloc}}
// CHECK:       }
#include "check.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { N = 40 };

/* *out = sum x[k]^2 y[k] */
static void dot3(double *out, const double *x, const double *y, int n) {
  double s = 0;
  for (int k = 0; k < n; k++)
    s += x[k] * x[k] * y[k];
  *out = s;
}

int main(void) {
  double x[N], y[N], dx[N] = {0}, dy[N] = {0}, out = 0, dout = 1.5;
  for (int k = 0; k < N; k++) {
    x[k] = 0.1 * k - 1.0;
    y[k] = 0.5 + 0.03 * k;
  }
  __enzyme_autodiff((void *)dot3, enzyme_dup, &out, &dout, enzyme_dup, x, dx, enzyme_dup, y, dy,
                    enzyme_const, N);
  double want = 0;
  for (int k = 0; k < N; k++) {
    want += x[k] * x[k] * y[k];
    check_close("d/dx", dx[k], 1.5 * 2 * x[k] * y[k], 1e-12);
    check_close("d/dy", dy[k], 1.5 * x[k] * x[k], 1e-12);
  }
  check_close("out", out, want, 1e-12);
  check_close("dout consumed", dout, 0, 0);

  /* out is x[0]: x[0] ends as the sum; its adjoint, 1.5, is the seed. */
  double x0[N], dx0[N] = {1.5};
  for (int k = 0; k < N; k++) {
    x0[k] = x[k];
    dy[k] = 0;
  }
  __enzyme_autodiff((void *)dot3, enzyme_dup, &x0[0], &dx0[0], enzyme_dup, x0, dx0, enzyme_dup, y, dy,
                    enzyme_const, N);
  check_close("x[0] = sum", x0[0], want, 1e-12);
  for (int k = 0; k < N; k++) {
    check_close("aliased: d/dx", dx0[k], 1.5 * 2 * x[k] * y[k], 1e-12);
    check_close("aliased: d/dy", dy[k], 1.5 * x[k] * x[k], 1e-12);
  }
  return check_exit();
}
