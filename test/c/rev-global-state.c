// RUN: %check-c %s %t
// Globals and static locals as users keep them: an active global weight the
// function reads and writes (its shadow is Kinase's own, zeroed before the
// request), an inactive global configuration read as a constant, a static
// local counter that only counts calls, and a static local array used as
// scratch memory between the function's loops.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

struct config { int iterations; double rate; };
static const struct config config = {3, 0.5};
double gain = 1.5;  /* active: written from x below */
int calls;          /* inactive bookkeeping */

/* x is staged through global and static memory */
static double staged(double x)
{
  static int evaluations;
  static double scratch[4];
  evaluations++;
  calls = evaluations;
  gain = x * config.rate;
  for (int i = 0; i < 4; i++)
    scratch[i] = gain * (i + 1);
  double s = 0;
  for (int k = 0; k < config.iterations; k++)
    for (int i = 0; i < 4; i++)
      s += sin(scratch[i]) * (k + 1);
  return s;
}

/* reads an active global only */
static double scaled(double x) { return gain * x * x; }

int main(void)
{
  double x = 0.8;
  /* s = 6 sum_i sin(0.5 x (i+1)); ds/dx = 6 sum_i 0.5 (i+1) cos(0.5 x (i+1)) */
  double want = 0;
  for (int i = 0; i < 4; i++)
    want += 6 * 0.5 * (i + 1) * cos(0.5 * x * (i + 1));
  check_close("staged: reverse", __enzyme_autodiff((void *)staged, x), want, 1e-13);
  check_close("staged: forward", __enzyme_fwddiff((void *)staged, x, 1.0), want, 1e-13);
  check_close("staged: twice more, same reverse", __enzyme_autodiff((void *)staged, x), want, 1e-13);
  check_true("static counter advanced with each run", calls >= 3);
  check_close("gain as staged left it", gain, 0.4, 0);
  gain = 2.5;
  check_close("scaled: reverse", __enzyme_autodiff((void *)scaled, x), 2 * 2.5 * x, 1e-14);
  check_close("scaled: forward", __enzyme_fwddiff((void *)scaled, x, 1.0), 2 * 2.5 * x, 1e-14);
  check_both_modes(staged, -0.3, 1e-6);
  return check_exit();
}
