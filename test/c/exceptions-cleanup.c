// C compiled with -fexceptions: a cleanup variable makes the calls after it
// invokes, with a landing pad that runs the cleanup and resumes (the same IR
// as C++ destructors). Both modes differentiate the normal path, where the
// cleanup runs once per call.
// RUN: %check-c %s %t -fexceptions
#include <kinase.h>

#include "check.h"

static int released;

static void release(double *p) {
  (void)p;
  released++;
}

__attribute__((noinline)) static double twice(double y) { return 2 * y; }

// h(x) = 2 x^2 + x: h'(x) = 4 x + 1
static double h(double x) {
  __attribute__((cleanup(release))) double y = x * x;
  return twice(y) + x;
}

int main(void) {
  check_close("reverse h'(1.5)", __enzyme_autodiff((void *)h, enzyme_out, 1.5), 7.0, 1e-15);
  check_close("forward h'(1.5)", __enzyme_fwddiff((void *)h, enzyme_dup, 1.5, 1.0), 7.0, 1e-15);
  check_true("the cleanup ran once per call", released == 2);
  return check_exit();
}
