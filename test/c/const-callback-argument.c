// A callback passed enzyme_const and stored into memory with a shadow (a
// local struct of a weight and its activation): the parameter had no
// shadow for the store ("a pointer here may point either to memory with a
// shadow ... or to memory without one (an enzyme_const argument)"). A
// function is its own shadow: the request passes it as one (abi/abi.c).
// Reverse, forward, split and batch forward mode.
// RUN: %check-c %s %t
#include <math.h>

#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_width;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
typedef struct {
  double d;
} Grad;
Grad __enzyme_reverse(void *, ...);
typedef struct {
  double d[2];
} Lanes;
Lanes __enzyme_fwddiff2(void *, ...) __asm__("__enzyme_fwddiff");

typedef struct {
  double w;
  double (*act)(double);
} Unit;

static double square(double t) { return t * t; }
static double cube(double t) { return t * t * t; }

__attribute__((noinline)) static double eval(const Unit *u, double x) { return u->act(u->w * x); }

static double f(double w, double (*act)(double)) {
  Unit u = {w, act};
  return eval(&u, 2.0);
}

int main(void) {
  double w = 0.5;
  // square(2w) = 4 w^2, cube(2w) = 8 w^3
  check_close("reverse", __enzyme_autodiff((void *)f, enzyme_out, w, enzyme_const, square), 8 * w, 1e-12);
  check_close("forward", __enzyme_fwddiff((void *)f, enzyme_dup, w, 1.0, enzyme_const, cube), 24 * w * w, 1e-12);
  void *tape = __enzyme_augmentfwd((void *)f, enzyme_out, w, enzyme_const, cube);
  Grad g = __enzyme_reverse((void *)f, enzyme_out, w, enzyme_const, cube, 1.0, tape);
  check_close("split", g.d, 24 * w * w, 1e-12);
  Lanes l = __enzyme_fwddiff2((void *)f, enzyme_width, 2, enzyme_dup, w, 1.0, 2.0, enzyme_const, square);
  check_close("batch lane 0", l.d[0], 8 * w, 1e-12);
  check_close("batch lane 1", l.d[1], 16 * w, 1e-12);
  return check_exit();
}
