// RUN: %check-c %s %t
// Found by tools/fuzz-numeric.py with global shadows and function pointers
// (seeds 2027, 2030, 2031: nine programs, one cause), and a sibling found
// while diagnosing it. Both walks over the call graph behind global shadows
// followed direct calls only:
// - a call whose arguments are all inactive (a callback and a constant)
//   reaches, through the callback, a global the request wrote: the call was
//   taken for inactive and the derivative was 0 in both modes;
// - a global set by main and read only in a callback: the request's entry
//   did not clear its shadow, so a forward request after a reverse one read
//   the leftover adjoint as a tangent (96 for 15).
#include <math.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_out, enzyme_dup, enzyme_const;

static double G;
static __attribute__((noinline)) void set(double p) { G = p; }
static double times_g(double p) { return p * G; }
static double apply(double (*g)(double), double p) { return g(p); }

double through_callback(double a)
{
  set(a * a);
  return apply(times_g, 0.5); /* 0.5 a^2 */
}

typedef double (*fn)(double);
double W; /* set by main */
static double scale(double x) { return W * x * x; }
double call_it(double x, fn g) { return g(x); }

int main(void)
{
  double a = 1.5;
  check_close("global read in a callback, reverse", __enzyme_autodiff((void *)through_callback, enzyme_out, a), a,
              1e-15);
  check_close("global read in a callback, forward",
              __enzyme_fwddiff((void *)through_callback, enzyme_dup, a, 1.0), a, 1e-15);
  double x = 3.0;
  W = 2.5;
  check_close("global set by main, reverse",
              __enzyme_autodiff((void *)call_it, enzyme_out, x, enzyme_const, scale), 2 * W * x, 1e-15);
  check_close("global set by main, forward after reverse",
              __enzyme_fwddiff((void *)call_it, enzyme_dup, x, 1.0, enzyme_const, scale), 2 * W * x, 1e-15);
  return check_exit();
}
