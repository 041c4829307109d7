// RUN: %check-c %s %t
// enzyme_nocache before an argument of a split-mode request (Enzyme's
// promise that its memory does not change between the two sweeps) is a
// hint: Kinase records what the reverse sweep needs either way, and the
// gradients equal __enzyme_autodiff's. Before an enzyme_const marker too.
#include <string.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_nocache;
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
void __enzyme_autodiff(void *, ...);

void scale_square(double *y, const double *x, const double *c)
{
  for (int i = 0; i < 3; i++)
    y[i] = *c * x[i] * x[i];
}

int main(void)
{
  double x[3] = {1.0, -2.0, 0.5}, dx[3] = {0}, y[3], dy[3] = {1, 1, 1}, c = 3.0;
  void *tape = __enzyme_augmentfwd((void *)scale_square, enzyme_nocache, y, dy, enzyme_nocache, x, dx,
                                   enzyme_nocache, enzyme_const, &c);
  __enzyme_reverse((void *)scale_square, enzyme_nocache, y, dy, enzyme_nocache, x, dx,
                   enzyme_nocache, enzyme_const, &c, tape);
  for (int i = 0; i < 3; i++)
    check_close("split with enzyme_nocache: dx_i", dx[i], 2 * c * x[i], 1e-14);

  double ex[3] = {0}, ey[3] = {1, 1, 1};
  __enzyme_autodiff((void *)scale_square, enzyme_dup, y, ey, enzyme_dup, x, ex, enzyme_const, &c);
  for (int i = 0; i < 3; i++)
    check_close("the same as __enzyme_autodiff", dx[i], ex[i], 0.0);
  return check_exit();
}
