// RUN: %check-c %s %t
// C11 atomic accumulation (atomic_fetch_add on an _Atomic double is an
// atomicrmw fadd, atomic_fetch_sub an fsub): the accumulated value gets the
// location's adjoint, which the accumulation leaves as it was; forward mode
// accumulates the tangent alike.
#include "check.h"
#include <math.h>
#include <stdatomic.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
typedef struct {
  double x, y;
} Grads;
Grads __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

/* total += x^2 * y, then total -= sin(x) */
static void accumulate(_Atomic double *total, double x, double y) {
  atomic_fetch_add(total, x * x * y);
  atomic_fetch_sub(total, sin(x));
}

int main(void) {
  for (double x = -1.0; x <= 1.0; x += 0.5) {
    double y = 0.25 + x;
    _Atomic double total = 1.0, dtotal = 2.0;
    Grads g = __enzyme_autodiff((void *)accumulate, enzyme_dup, &total, &dtotal, enzyme_out, x,
                                enzyme_out, y);
    check_close("d/dx", g.x, 2.0 * (2 * x * y - cos(x)), 1e-12);
    check_close("d/dy", g.y, 2.0 * x * x, 1e-12);
    check_close("the location's adjoint is kept", atomic_load(&dtotal), 2.0, 0);
    _Atomic double t = 1.0, dt = 0.0;
    __enzyme_fwddiff((void *)accumulate, enzyme_dup, &t, &dt, enzyme_dup, x, 1.0, enzyme_dup, y, 0.5);
    check_close("tangent", atomic_load(&dt), 2 * x * y + 0.5 * x * x - cos(x), 1e-12);
    check_close("primal in forward mode", atomic_load(&t), 1.0 + x * x * y - sin(x), 1e-12);
  }
  return check_exit();
}
