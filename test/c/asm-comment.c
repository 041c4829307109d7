// RUN: %check-c %s %t
// Inline assembly that touches no value is passed over: a comment marking a
// kernel in assembly listings (Eigen's asm("#EIGEN PRODUCT PACK LHS")), on
// several lines too, and an empty statement that only orders the compiler.
// Assembly with operands is still an error (test/errors/inline-asm.c), and
// so is one whose text holds an instruction after a comment line
// (test/errors/inline-asm-comment.c). Both modes, against the analytic
// derivative.
#include "check.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static double dot_self(const double *x, int n)
{
  double s = 0;
  __asm__("#begin dot kernel");
  for (int i = 0; i < n; i++) {
    __asm__ volatile("" ::: "memory");
    s += x[i] * x[i];
  }
  __asm__("  # end\n\t# dot kernel\n");
  return s;
}

int main(void)
{
  double x[3] = {1.0, -2.0, 0.5}, dx[3] = {0};
  __enzyme_autodiff((void *)dot_self, enzyme_dup, x, dx, enzyme_const, 3);
  for (int i = 0; i < 3; i++)
    check_close("reverse: d/dx_i", dx[i], 2 * x[i], 1e-14);
  double tx[3] = {1, 1, 1};
  double t = __enzyme_fwddiff((void *)dot_self, enzyme_dup, x, tx, enzyme_const, 3);
  check_close("forward", t, 2 * (1.0 - 2.0 + 0.5), 1e-14);
  return check_exit();
}
