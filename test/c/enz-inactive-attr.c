// kinase-cc knows Enzyme's attributes by itself (as Enzyme's own tests use
// them, without any header); plain clang with the plugin knows them through
// kinase.h (-include here). Clang alone ignores them with a warning.
// RUN: %kinase-cc -O0 -Wall -Werror %testinc %s -o %t.O0 -lm && %t.O0
// RUN: %kinase-cc -O2 -Wall -Werror %testinc %s -o %t.O2 -lm && %t.O2
// RUN: %clang-plugin -O0 -Wall -Werror -include kinase.h %testinc %s -o %t.plugin.O0 -lm && %t.plugin.O0
// RUN: %clang-plugin -O2 -Wall -Werror -include kinase.h %testinc %s -o %t.plugin.O2 -lm && %t.plugin.O2
// Functions marked inactive with Enzyme's source attributes
// __attribute__((enzyme_inactive)) and
// __attribute__((enzyme_inactive_noblock)): calls of them contribute no
// derivative, in reverse and forward mode, even though their results depend
// on the active argument.
#include <math.h>
#include <stdio.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

__attribute__((enzyme_inactive)) double twice_like(double a) { return 2 * a; }
__attribute__((enzyme_inactive_noblock)) double thrice_like(double a) { return 3 * a; }
__attribute__((enzyme_inactive)) double scale = 4.0; /* an inactive global */

double use_inactive(double a) { return twice_like(a) + a * a; }
double use_noblock(double a) { return thrice_like(a) * a; }

__attribute__((noinline)) void set_scale(double a) { scale = a * a; }
double use_global(double a)
{
  set_scale(a);
  return scale + a;
}

int main(void)
{
  double a = 1.5;
  check_close("enzyme_inactive, reverse", __enzyme_autodiff((void *)use_inactive, a), 2 * a, 1e-14);
  check_close("enzyme_inactive, forward", __enzyme_fwddiff((void *)use_inactive, a, 1.0), 2 * a, 1e-14);
  /* thrice_like(a) is a constant 3a: d/da (3a0) a = 3 a0 */
  check_close("enzyme_inactive_noblock, reverse", __enzyme_autodiff((void *)use_noblock, a), 3 * a, 1e-14);
  check_close("enzyme_inactive_noblock, forward", __enzyme_fwddiff((void *)use_noblock, a, 1.0), 3 * a, 1e-14);
  /* the store into the inactive global carries no derivative */
  check_close("enzyme_inactive global, reverse", __enzyme_autodiff((void *)use_global, a), 1.0, 1e-14);
  check_close("enzyme_inactive global, forward", __enzyme_fwddiff((void *)use_global, a, 1.0), 1.0, 1e-14);
  return check_exit();
}
