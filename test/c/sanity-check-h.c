// The test harness itself, without Kinase: check.h passes what is right and
// reports what is wrong, with a non-zero exit status.
// RUN: %clang -O0 -Wall -Werror %testinc %s -o %t -lm
// RUN: %t | FileCheck --check-prefix=PASS %s
// RUN: %clang -O2 -Wall -Werror %testinc -DBREAK_IT %s -o %t.broken -lm
// RUN: not %t.broken | FileCheck --check-prefix=BROKEN %s

// PASS: PASS (5 checks)

// BROKEN: FAIL sin'(1): got 0.5{{[0-9]*}} want 0.54030230586813{{[0-9]*}}
// BROKEN: FAIL exact: got nan want 1
// BROKEN: FAIL truth
// BROKEN: FAILED 3 of 5 checks

#include "check.h"

static double square(double x) { return x * x; }

int main(void) {
#ifndef BREAK_IT
  check_close("sin'(1)", central_difference(sin, 1.0), cos(1.0), 1e-8);
  check_close("square'(3e5)", central_difference(square, 3e5), 6e5, 1e-8);
  check_close("exact", 1.0, 1.0, 0.0);
  check_close("absolute below 1", 1e-13, 0.0, 1e-12);
  check_true("truth", 1 + 1 == 2);
#else
  check_close("sin'(1)", 0.5, cos(1.0), 1e-8);
  check_close("square'(3e5)", central_difference(square, 3e5), 6e5, 1e-8);
  check_close("exact", NAN, 1.0, 1e-3);
  check_close("absolute below 1", 1e-13, 0.0, 1e-12);
  check_true("truth", 1 + 1 == 3);
#endif
  return check_exit();
}
