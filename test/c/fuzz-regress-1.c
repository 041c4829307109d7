// RUN: %check-c %s %t
// Found by tools/fuzz-numeric.py (seed 1, programs 16, 262, 339, 590): a
// struct passed by value (byval at the IR level) is the callee's own copy.
// A callee that writes its copy, directly or through a pointer to it handed
// to another function, must leave the caller's struct alone, in the
// derivatives as in the primal. Both modes.
#include <math.h>
#include <stdio.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_out, enzyme_dup, enzyme_const;

struct S {
  double a, b, c;
};

/* writes its copy, returns a constant */
static double clobber(struct S s, double q)
{
  s.c = 2.0 * q;
  return s.c;
}

static double use(struct S s, double q) { return s.c * q; }

/* f(a) = 6 + 2 a^2 */
double direct(double a)
{
  struct S s = {a, 0.5, a * a};
  double t = clobber(s, 3.0);
  return t + use(s, 2.0);
}

static void set_a(struct S *p, double v) { p->a = sin(p->a) + v; }

/* writes its copy through a pointer, in a loop */
static double through_ptr(struct S s, double q)
{
  for (int i = 0; i < 3; i++)
    set_a(&s, q * s.b);
  return s.a * s.c;
}

/* the caller's struct still holds a, a*a, a^3 after the first call */
double indirect(double a)
{
  struct S s = {a, a * a, a * a * a};
  double u = through_ptr(s, 0.5);
  double v = through_ptr(s, a);
  return u + v + s.a * s.b + s.c;
}

int main(void)
{
  double a = 0.8;
  check_close("direct value", direct(a), 6.0 + 2.0 * a * a, 1e-12);
  check_close("direct rev", __enzyme_autodiff((void *)direct, enzyme_out, a), 4.0 * a, 1e-12);
  check_close("direct fwd", __enzyme_fwddiff((void *)direct, enzyme_dup, a, 1.0), 4.0 * a, 1e-12);

  double want = central_difference(indirect, a);
  check_close("indirect rev", __enzyme_autodiff((void *)indirect, enzyme_out, a), want, 1e-6);
  check_close("indirect fwd", __enzyme_fwddiff((void *)indirect, enzyme_dup, a, 1.0), want, 1e-6);
  return check_exit();
}
