// RUN: %check-c %s %t
// Globals beside shadowed memory, both modes:
// - a global array filled by memcpy from a dup argument, then read;
// - a pointer that is either a dup argument or a read-only global (a phi,
//   and a load through a select of the two addresses, as clang makes of
//   `c ? y[i] : K[i]`): the global's shadow reads as zero;
// - a global written by main before the request: a constant input, whose
//   shadow does not carry adjoints or tangents from one request into the
//   next (the same request run twice, and forward after reverse).
#include <math.h>
#include <string.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const, enzyme_out;

double saved[4];

double through_memcpy(const double *p)
{
  memcpy(saved, p, sizeof saved);
  return saved[3] * saved[1] + sin(saved[0]);
}

double k = 3.0;

double phi_of_global(double *a, int c)
{
  double *p = a;
  if (c)
    p = &k;
  return *p * *p;
}

static const double K[3] = {0.5, 1.5, -2.0};

/* sum_i (y_i > 0 ? y_{i+1} : K_i) * y_i */
double table(double *y, int n)
{
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (y[i] > 0.0 ? y[(i + 1) % n] : K[i]) * y[i];
  return s;
}

double weight; /* set by main */

double weighted(double x) { return weight * x * x; }

int main(void)
{
  double p[4] = {0.3, 2.0, -1.0, 4.0}, dp[4] = {0};
  __enzyme_autodiff((void *)through_memcpy, enzyme_dup, p, dp);
  check_close("memcpy into a global, reverse dp0", dp[0], cos(0.3), 1e-14);
  check_close("memcpy into a global, reverse dp1", dp[1], 4.0, 1e-14);
  check_close("memcpy into a global, reverse dp2", dp[2], 0.0, 0);
  check_close("memcpy into a global, reverse dp3", dp[3], 2.0, 1e-14);
  double tp[4] = {0, 0, 0, 1};
  check_close("memcpy into a global, forward", __enzyme_fwddiff((void *)through_memcpy, enzyme_dup, p, tp), 2.0,
              1e-14);

  double a = 1.5, da = 0;
  __enzyme_autodiff((void *)phi_of_global, enzyme_dup, &a, &da, enzyme_const, 0);
  check_close("phi of dup and global, reverse, dup taken", da, 3.0, 1e-14);
  da = 0;
  __enzyme_autodiff((void *)phi_of_global, enzyme_dup, &a, &da, enzyme_const, 1);
  check_close("phi of dup and global, reverse, global taken", da, 0.0, 0);
  double ta = 1.0;
  check_close("phi of dup and global, forward, global taken",
              __enzyme_fwddiff((void *)phi_of_global, enzyme_dup, &a, &ta, enzyme_const, 1), 0.0, 0);
  check_close("phi of dup and global, forward, dup taken",
              __enzyme_fwddiff((void *)phi_of_global, enzyme_dup, &a, &ta, enzyme_const, 0), 3.0, 1e-14);

  double y[3] = {1.0, -2.0, 3.0}, dy[3] = {0};
  /* y0*y1 + K1*y1 + y2*y0: d/dy = (y1 + y2, y0 + K1, y0) */
  __enzyme_autodiff((void *)table, enzyme_dup, y, dy, enzyme_const, 3);
  check_close("select of dup and constant table, reverse y0", dy[0], 1.0, 1e-12);
  check_close("select of dup and constant table, reverse y1", dy[1], 2.5, 1e-12);
  check_close("select of dup and constant table, reverse y2", dy[2], 1.0, 1e-12);
  double ty[3] = {0, 1, 0};
  check_close("select of dup and constant table, forward y1",
              __enzyme_fwddiff((void *)table, enzyme_dup, y, ty, enzyme_const, 3), 2.5, 1e-12);

  weight = 2.5;
  for (int run = 0; run < 2; run++)
    check_close("global set by main, reverse", __enzyme_autodiff((void *)weighted, 0.4), 2 * 2.5 * 0.4, 1e-14);
  check_close("global set by main, forward after reverse", __enzyme_fwddiff((void *)weighted, 0.4, 1.0),
              2 * 2.5 * 0.4, 1e-14);
  return check_exit();
}
