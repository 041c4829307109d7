// RUN: %check-c %s %t
// Split mode: the augmented forward pass and the reverse pass requested
// separately with __enzyme_augmentfwd and __enzyme_reverse, the tape kept in
// caller-provided storage (enzyme_allocated with its size, enzyme_tape with
// the buffer). The function overwrites its input, so the reverse pass needs
// the tape. Between the two calls the caller may do other work. Also the
// form without enzyme_allocated, where __enzyme_augmentfwd returns the tape
// (a pointer to storage Enzyme allocated) and __enzyme_reverse frees it.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_allocated, enzyme_tape;
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

enum { TAPE = 256 };

/* x <- (x0 + sin(x1) x1, x1 x0) */
void step(double *x)
{
  double a = x[0], b = x[1];
  x[0] = a + sin(b) * b;
  x[1] = b * a;
}

void step_aug(double *x, double *dx, void *tape)
{
  __enzyme_augmentfwd((void *)step, enzyme_dup, x, dx, enzyme_allocated, TAPE, enzyme_tape, tape);
}

void step_rev(double *x, double *dx, void *tape)
{
  __enzyme_reverse((void *)step, enzyme_dup, x, dx, enzyme_allocated, TAPE, enzyme_tape, tape);
}

int main(void)
{
  double a = 1.2, b = 0.4;
  double x[2] = {a, b};
  double w0 = 0.5, w1 = -1.5;
  double dx[2] = {w0, w1};
  _Alignas(16) char tape[TAPE];
  step_aug(x, dx, tape);
  check_close("augmented pass computed x0", x[0], a + sin(b) * b, 1e-14);
  check_close("augmented pass computed x1", x[1], b * a, 1e-14);
  /* the caller reads the outputs and seeds their adjoints in dx */
  step_rev(x, dx, tape);
  /* J = [[1, sin b + b cos b], [b, a]]; dx = J^T w */
  check_close("reverse dx0", dx[0], w0 * 1 + w1 * b, 1e-14);
  check_close("reverse dx1", dx[1], w0 * (sin(b) + b * cos(b)) + w1 * a, 1e-14);

  /* the tape returned by the augmented pass */
  x[0] = a;
  x[1] = b;
  dx[0] = 0.0;
  dx[1] = 0.0;
  void *t = __enzyme_augmentfwd((void *)step, enzyme_dup, x, dx);
  dx[0] = w0;
  dx[1] = w1;
  __enzyme_reverse((void *)step, enzyme_dup, x, dx, enzyme_tape, t);
  check_close("returned tape: dx0", dx[0], w0 * 1 + w1 * b, 1e-14);
  check_close("returned tape: dx1", dx[1], w0 * (sin(b) + b * cos(b)) + w1 * a, 1e-14);
  return check_exit();
}
