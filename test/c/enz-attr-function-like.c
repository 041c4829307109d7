// Enzyme's attribute enzyme_function_like("name"), with no header included
// (as Enzyme's programs write it): the function is differentiated as the
// named math function, whatever its body computes. kinase-cc knows the
// attribute by itself; plain clang with the plugin knows it through
// kinase.h (-include) or a -D of the macro (README.md, "Enzyme's
// attributes"). Clang alone ignores it with a warning (-Werror here).
// RUN: %kinase-cc -O0 -Wall -Werror %testinc %s -o %t.O0 -lm && %t.O0
// RUN: %kinase-cc -O2 -Wall -Werror %testinc %s -o %t.O2 -lm && %t.O2
// RUN: %clang-plugin -O0 -Wall -Werror -include kinase.h %testinc %s -o %t.plugin.O0 -lm && %t.plugin.O0
// RUN: %clang-plugin -O2 -Wall -Werror '-Denzyme_function_like(name)=annotate("enzyme_function_like", name)' %testinc %s -o %t.plugin.O2 -lm && %t.plugin.O2
#include <math.h>
#include <stdio.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_const;

// A series good near 0 only: its own derivative, 1 - x + x^2, is off by
// 0.25 at x = 0.5. Differentiated as log1p, the derivative is 1 / (1 + x).
__attribute__((enzyme_function_like("log1p"))) double series_log1p(double x)
{
  return x - x * x / 2 + x * x * x / 3;
}

// Marked on its prototype, defined below without the attribute.
__attribute__((enzyme_function_like("atan2"))) double small_angle(double y, double x);

// Float, as the float spelling of exp. The derivative of exp is its result:
// the formula of the named function takes this call's arguments and result.
__attribute__((enzyme_function_like("expf"))) float table_expf(float x);

double small_angle(double y, double x)
{
  return y / x; /* atan2 for small angles */
}

float table_expf(float x)
{
  return 1.0f + x; /* a crude table lookup */
}

double use_log1p(double x) { return 3 * series_log1p(x); }
double use_angle(double y, double x) { return 2 * small_angle(y, x); }
double use_expf(double x) { return (double)table_expf((float)x); }

int main(void)
{
  double x = 0.5;
  check_close("like log1p, reverse", __enzyme_autodiff((void *)use_log1p, x), 3 / (1 + x), 1e-14);
  check_close("like log1p, forward", __enzyme_fwddiff((void *)use_log1p, x, 1.0), 3 / (1 + x), 1e-14);

  /* d atan2(y, x) = (x dy - y dx) / (x^2 + y^2) */
  double y = 0.3, xx = 2, r2 = xx * xx + y * y;
  check_close("like atan2, reverse d/dy", __enzyme_autodiff((void *)use_angle, y, enzyme_const, xx),
              2 * xx / r2, 1e-14);
  check_close("like atan2, forward d/dy", __enzyme_fwddiff((void *)use_angle, y, 1.0, xx, 0.0),
              2 * xx / r2, 1e-14);
  check_close("like atan2, forward d/dx", __enzyme_fwddiff((void *)use_angle, y, 0.0, xx, 1.0),
              -2 * y / r2, 1e-14);

  /* exp's derivative is exp: of the float body's value, 1 + x */
  check_close("like expf, reverse", __enzyme_autodiff((void *)use_expf, 0.25), 1.25, 1e-6);
  check_close("like expf, forward", __enzyme_fwddiff((void *)use_expf, 0.25, 1.0), 1.25, 1e-6);

  /* The primal is the user's function. */
  check_close("primal", use_log1p(x), 3 * series_log1p(x), 0);
  return check_exit();
}
