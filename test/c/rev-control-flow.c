// RUN: %check-c %s %t
// Control flow users write: early returns from inside a loop, goto to a
// shared cleanup label and backwards (a retry loop), a switch on an integer
// computed from the data (with fallthrough and a default), and a switch
// inside a loop. Both modes, against analytic derivatives.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

/* the product of the x[i] up to the first negative one, which is returned
 * squared times the product so far */
static double product_until_negative(const double *x, int n)
{
  double p = 1;
  for (int i = 0; i < n; i++) {
    if (x[i] < 0)
      return p * x[i] * x[i];
    p *= x[i];
  }
  return p;
}

/* goto forwards to a cleanup label and backwards to retry with a halved
 * step while the step overshoots */
static double with_goto(double x)
{
  double step = x, r;
  int tries = 0;
retry:
  r = x - step * step;
  if (r < 0 && tries < 10) {
    step *= 0.5;
    tries++;
    goto retry;
  }
  if (tries > 3)
    goto done;
  r = r * 2;
done:
  return r + sin(step);
}

/* piecewise by the integer part of x */
static double piecewise(double x)
{
  double y = 0;
  switch ((int)floor(x)) {
  case 0:
    y = x * x;
    break;
  case 1:
    y += 3 * x; /* falls through */
  case 2:
    y += exp(x);
    break;
  case -1:
  case -2:
    y = -x * x * x;
    break;
  default:
    y = 7 * x;
  }
  return y;
}

/* an opcode interpreter: ops[i] picks what happens to the accumulator */
static double interpret(const int *ops, const double *args, int n, double acc)
{
  for (int i = 0; i < n; i++) {
    switch (ops[i]) {
    case 0: acc += args[i]; break;
    case 1: acc *= args[i]; break;
    case 2: acc = sin(acc) * args[i]; break;
    case 3: if (acc > args[i]) continue; acc = args[i]; break;
    default: return acc * 100;
    }
    acc = acc * 0.9;
  }
  return acc;
}

int main(void)
{
  double x[5] = {1.5, 0.5, 2.0, -0.7, 3.0}, dx[5] = {0};
  __enzyme_autodiff((void *)product_until_negative, enzyme_dup, x, dx, enzyme_const, 5);
  double p = 1.5 * 0.5 * 2.0, q = x[3] * x[3];
  check_close("early return: dx0", dx[0], q * p / x[0], 1e-14);
  check_close("early return: dx1", dx[1], q * p / x[1], 1e-14);
  check_close("early return: dx2", dx[2], q * p / x[2], 1e-14);
  check_close("early return: dx3", dx[3], 2 * p * x[3], 1e-14);
  check_close("early return: dx4", dx[4], 0, 0);
  double t[5] = {1, 1, 1, 1, 1};
  check_close("early return: forward", __enzyme_fwddiff((void *)product_until_negative, enzyme_dup, x, t, enzyme_const, 5),
              dx[0] + dx[1] + dx[2] + dx[3], 1e-14);
  x[3] = 0.7; /* no negative: the product of all five */
  for (int i = 0; i < 5; i++)
    dx[i] = 0;
  __enzyme_autodiff((void *)product_until_negative, enzyme_dup, x, dx, enzyme_const, 5);
  check_close("no early return: dx4", dx[4], 1.5 * 0.5 * 2.0 * 0.7, 1e-14);

  /* x = 0.5: step 0.5 (r = 0.25 >= 0, 0 tries): 2(x - x^2) + sin x */
  check_close("goto, no retry", __enzyme_autodiff((void *)with_goto, 0.5), 2 * (1 - 2 * 0.5) + cos(0.5), 1e-14);
  /* x = 3: step 3 -> 1.5 (r = 0.75, 1 try): step = x/2, 2(x - x^2/4) + sin(x/2) */
  check_close("goto, one retry", __enzyme_autodiff((void *)with_goto, 3.0), 2 * (1 - 3.0 / 2) + 0.5 * cos(1.5), 1e-14);
  check_close("goto, one retry, forward", __enzyme_fwddiff((void *)with_goto, 3.0, 1.0), 2 * (1 - 3.0 / 2) + 0.5 * cos(1.5),
              1e-14);
  /* x = 40: step 40 / 2^k with k = 3 (5^2 = 25 <= 40 < 100): tries = 3 -> doubled;
   * x = 300: k = 5 (9.375^2 < 300): tries > 3, jumps over the doubling */
  check_close("goto, three retries", __enzyme_autodiff((void *)with_goto, 40.0), 2 * (1 - 2 * 40.0 / 64) + cos(5.0) / 8,
              1e-13);
  check_close("goto, cleanup jump", __enzyme_autodiff((void *)with_goto, 300.0), 1 - 2 * 300.0 / 1024 + cos(9.375) / 32,
              1e-13);

  const struct { double x, d; } cases[] = {
      {0.4, 0.8}, {1.3, 3 + exp(1.3)}, {2.6, exp(2.6)}, {-0.5, -3 * 0.25}, {-1.5, -3 * 2.25}, {5.5, 7}, {-4.2, 7}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char what[48];
    snprintf(what, sizeof what, "switch at %g: reverse", cases[i].x);
    check_close(what, __enzyme_autodiff((void *)piecewise, cases[i].x), cases[i].d, 1e-13);
    snprintf(what, sizeof what, "switch at %g: forward", cases[i].x);
    check_close(what, __enzyme_fwddiff((void *)piecewise, cases[i].x, 1.0), cases[i].d, 1e-13);
  }

  /* acc0 = 0.5: +a0, *a1, sin()*a2, max with a3 (skip), *a4 */
  const int ops[5] = {0, 1, 2, 3, 1};
  double args[5] = {0.25, 2.0, 1.5, 0.1, -3.0}, dargs[5] = {0};
  double dacc = __enzyme_autodiff((void *)interpret, enzyme_const, ops, enzyme_dup, args, dargs, enzyme_const, 5,
                                  enzyme_out, 0.5);
  double a1 = (0.5 + 0.25) * 0.9, a2 = a1 * 2.0 * 0.9, a3 = sin(a2) * 1.5 * 0.9;
  /* result = a3 * -3 * 0.9 (op 3 skipped since a3 > 0.1) */
  double s = -3.0 * 0.9, da3 = s, da2 = da3 * cos(a2) * 1.5 * 0.9, da1 = da2 * 2.0 * 0.9, dacc0 = da1 * 0.9;
  check_close("interpret: dacc", dacc, dacc0, 1e-14);
  check_close("interpret: dargs0", dargs[0], da1 * 0.9, 1e-14);
  check_close("interpret: dargs1", dargs[1], da2 * a1 * 0.9, 1e-14);
  check_close("interpret: dargs2", dargs[2], da3 * sin(a2) * 0.9, 1e-14);
  check_close("interpret: dargs3", dargs[3], 0, 0);
  check_close("interpret: dargs4", dargs[4], a3 * 0.9, 1e-14);
  check_close("interpret: forward", __enzyme_fwddiff((void *)interpret, enzyme_const, ops, enzyme_const, args,
                                                     enzyme_const, 5, 0.5, 1.0),
              dacc0, 1e-14);
  return check_exit();
}
