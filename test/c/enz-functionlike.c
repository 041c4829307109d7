// RUN: %check-c %s %t
// Registration arrays that change how calls are differentiated:
// __enzyme_function_like makes user functions be differentiated like a
// named libm function (here deliberately different from what they compute,
// so the checks can tell), and __enzyme_inactivefn makes calls of logging
// and bookkeeping helpers contribute nothing. Reverse and forward mode.
#include <math.h>
#include <stdio.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

double my_log1p(double a) { return 2 * a; }
double my_sin(double a) { return a; }
void *__enzyme_function_like[2] = {(void *)my_log1p, "log1p"};
void *__enzyme_function_like_sin[2] = {(void *)my_sin, "sin"};

static int calls;
double note(double a)
{
  calls++;
  return a * 7.0;
}
void *__enzyme_inactivefn[1] = {(void *)note};

double use_log1p(double a) { return my_log1p(a); }
double use_sin(double a) { return my_sin(a) * a; }
double use_note(double a) { return note(a) + a * a * a; }

int main(void)
{
  double a = 2.0;
  check_close("like log1p, reverse", __enzyme_autodiff((void *)use_log1p, a), 1 / (1 + a), 1e-14);
  check_close("like log1p, forward", __enzyme_fwddiff((void *)use_log1p, a, 1.0), 1 / (1 + a), 1e-14);
  /* d/da (sin-like(a) a) = cos(a) a + my_sin(a) */
  check_close("like sin, reverse", __enzyme_autodiff((void *)use_sin, 0.3), cos(0.3) * 0.3 + 0.3, 1e-14);
  check_close("like sin, forward", __enzyme_fwddiff((void *)use_sin, 0.3, 1.0), cos(0.3) * 0.3 + 0.3, 1e-14);
  check_close("inactive function, reverse", __enzyme_autodiff((void *)use_note, a), 3 * a * a, 1e-14);
  check_close("inactive function, forward", __enzyme_fwddiff((void *)use_note, a, 1.0), 3 * a * a, 1e-14);
  check_true("inactive function still runs", calls == 2);
  return check_exit();
}
