// Enzyme's split-mode marker enzyme_nofree, declared by the program as the
// other markers are (`int enzyme_nofree;`) and passed to __enzyme_reverse:
// accepted as a hint (Kinase's reverse pass releases what the tape holds,
// so the tape serves one reverse pass). kinase-cc defined enzyme_nofree as
// a macro for Enzyme's attribute of that name, which made the declaration
// a syntax error.
// RUN: %check-c %s %t
#include <math.h>

#include "check.h"

int enzyme_dup, enzyme_const, enzyme_allocated, enzyme_tape, enzyme_nofree;
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

static void square_sin(const double *x, double *y, int n) {
  for (int i = 0; i < n; i++)
    y[i] = x[i] * x[i] * sin(x[i]);
}

int main(void) {
  double x[3] = {0.5, 1.0, 1.5}, dx[3] = {0}, y[3], dy[3] = {1, 1, 1};
  void *tape = __enzyme_augmentfwd((void *)square_sin, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, 3);
  __enzyme_reverse((void *)square_sin, enzyme_nofree, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, 3, tape);
  for (int i = 0; i < 3; i++)
    check_close("split", dx[i], 2 * x[i] * sin(x[i]) + x[i] * x[i] * cos(x[i]), 1e-12);
  return check_exit();
}
