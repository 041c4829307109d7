// RUN: %check-c %s %t
// Mutable global variables that carry differentiated values between
// functions, as older C codes keep state in file-scope arrays: one callee
// writes a global array from the input, another reads it; a global scalar
// is written in a callee and read right after the call; and a global used
// as scratch inside one function. Enzyme gives such globals a shadow, so the
// gradient flows through them. Reverse and forward mode.
#include <math.h>
#include <stdio.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static double state[3];
static double last = 1.0;
double scratch[4];

__attribute__((noinline)) static void fill(const double *x)
{
  for (int i = 0; i < 3; i++)
    state[i] = x[i] * x[i];
}

__attribute__((noinline)) static double drain(void)
{
  double s = 0;
  for (int i = 0; i < 3; i++)
    s += state[i] * (i + 1);
  return s;
}

static double pipeline(const double *x)
{
  fill(x);
  return drain();
}

__attribute__((noinline)) static void remember(const double *x) { last = sin(x[0]); }

static double recall(const double *x)
{
  remember(x);
  return last * x[1];
}

double use_scratch(double x)
{
  for (int i = 0; i < 4; i++)
    scratch[i] = x * (i + 1);
  double s = 0;
  for (int i = 0; i < 4; i++)
    s += scratch[i] * scratch[3 - i];
  return s;
}

int main(void)
{
  char what[64];
  double x[3] = {1.0, -2.0, 0.5}, dx[3] = {0};
  __enzyme_autodiff((void *)pipeline, x, dx);
  for (int i = 0; i < 3; i++) {
    snprintf(what, sizeof what, "global array between callees dx[%d]", i);
    check_close(what, dx[i], 2 * x[i] * (i + 1), 1e-14);
    double t[3] = {0};
    t[i] = 1.0;
    snprintf(what, sizeof what, "global array between callees, forward e%d", i);
    check_close(what, __enzyme_fwddiff((void *)pipeline, x, t), 2 * x[i] * (i + 1), 1e-14);
  }
  double y[2] = {0.3, 2.0}, dy[2] = {0};
  __enzyme_autodiff((void *)recall, y, dy);
  check_close("global scalar written in callee dy0", dy[0], cos(0.3) * 2.0, 1e-14);
  check_close("global scalar written in callee dy1", dy[1], sin(0.3), 1e-14);
  /* sum (i+1)(4-i) x^2 = 20 x^2 */
  check_close("global scratch, reverse", __enzyme_autodiff((void *)use_scratch, 0.7), 40 * 0.7, 1e-14);
  check_close("global scratch, forward", __enzyme_fwddiff((void *)use_scratch, 0.7, 1.0), 40 * 0.7, 1e-14);
  return check_exit();
}
