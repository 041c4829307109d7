// A callee that stores a function it is passed into memory with a shadow
// (an object holding a weight and its activation, set up by a helper). The
// function argument had no shadow in the callee's derivative, where the
// store needs one ("a pointer here may point either to memory with a
// shadow ... or to memory without one (an enzyme_const argument)"). A
// function is its own shadow: the callee gets it as a parameter with one,
// as a null pointer argument does.
// RUN: %check-c %s %t
#include <math.h>

#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef struct {
  double w;
  double (*act)(double);
} Unit;

static double square(double t) { return t * t; }
static double softsign(double t) { return t / (1 + fabs(t)); }

__attribute__((noinline)) static void unit_init(Unit *u, double w, double (*act)(double)) {
  u->w = w;
  u->act = act;
}

__attribute__((noinline)) static double unit_eval(const Unit *u, double x) { return u->act(u->w * x); }

static double f(double x) {
  Unit units[2];
  unit_init(&units[0], x, square);
  unit_init(&units[1], 0.5, softsign);
  return unit_eval(&units[0], 1.5) + unit_eval(&units[1], x);
}

int main(void) {
  for (double x = 0.2; x < 2; x += 0.6) {
    // 2.25 x^2 + (x/2) / (1 + x/2)
    double want = 4.5 * x + 0.5 / ((1 + x / 2) * (1 + x / 2));
    check_close("f' reverse", __enzyme_autodiff((void *)f, x), want, 1e-12);
    check_close("f' forward", __enzyme_fwddiff((void *)f, x, 1.0), want, 1e-12);
  }
  return check_exit();
}
