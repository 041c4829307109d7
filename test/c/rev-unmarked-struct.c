// RUN: %check-c %s %t
// Structures passed by value without a marker. Clang passes a small
// structure as its eightbytes, one argument each, and the shadow structure
// after it: each piece takes the default activity of its type (a pointer
// dup with the same piece of the shadow, an int Const, a double out in
// reverse mode and dup in forward mode). Before, the pieces were read one
// value each, so `s, ds` of struct {double *p, *q;} gave p the shadow s.q:
// a silently wrong gradient.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
typedef struct { double a, b; } Grad2;
Grad2 __enzyme_autodiff_2(void *, ...);

typedef struct { double *p, *q; } Two;
typedef struct { double *p; int n; } Span;
typedef struct { double *p; double w; } Weighted;
typedef struct { double x, y; } P2;

double prod(Two s) { return s.p[0] * s.q[0] * s.q[1]; }
double sumsq(Span s)
{
  double t = 0;
  for (int i = 0; i < s.n; i++)
    t += s.p[i] * s.p[i];
  return t;
}
double weighted(Weighted s) { return s.w * s.w * s.p[0] + s.p[1]; }
double area(P2 p) { return p.x * p.x * p.y; }
/* an unmarked struct between a marked scalar and an unmarked pointer */
double around(double c, Two s, double *r) { return c * s.p[0] * s.q[0] + r[0] * s.q[1]; }

int main(void)
{
  volatile double vol = 2.0;
  double a = vol, b[2] = {5.0, -1.5}, da = 0, db[2] = {0, 0};
  Two s = {&a, b}, ds = {&da, db};
  __enzyme_autodiff((void *)prod, s, ds);
  check_close("two pointers, reverse: dp", da, b[0] * b[1], 1e-14);
  check_close("two pointers, reverse: dq[0]", db[0], a * b[1], 1e-14);
  check_close("two pointers, reverse: dq[1]", db[1], a * b[0], 1e-14);

  double ta = 1.0, tb[2] = {0.5, 2.0};
  Two ts = {&ta, tb};
  check_close("two pointers, forward", __enzyme_fwddiff((void *)prod, s, ts),
              ta * b[0] * b[1] + a * tb[0] * b[1] + a * b[0] * tb[1], 1e-14);

  double v[3] = {1.0, -2.0, 3.0}, dv[3] = {0, 0, 0};
  Span sp = {v, 3}, dsp = {dv, 3};
  __enzyme_autodiff((void *)sumsq, sp, dsp);
  for (int i = 0; i < 3; i++)
    check_close("pointer and int, reverse", dv[i], 2 * v[i], 1e-14);

  double u[2] = {1.5, 4.0}, du[2] = {0, 0};
  Weighted w = {u, 3.0}, dw = {du, 0.0};
  double gw = __enzyme_autodiff((void *)weighted, w, dw);
  check_close("pointer and double, reverse: d/dw (returned)", gw, 2 * 3.0 * u[0], 1e-14);
  check_close("pointer and double, reverse: dp[0]", du[0], 9.0, 1e-14);
  check_close("pointer and double, reverse: dp[1]", du[1], 1.0, 1e-14);
  double tu[2] = {1.0, 1.0};
  Weighted tw = {tu, 0.5};
  check_close("pointer and double, forward", __enzyme_fwddiff((void *)weighted, w, tw),
              2 * 3.0 * 0.5 * u[0] + 9.0 * tu[0] + tu[1], 1e-14);

  P2 p = {3.0, 4.0}, tp = {1.0, -1.0};
  Grad2 g = __enzyme_autodiff_2((void *)area, p);
  check_close("two doubles, reverse: d/dx", g.a, 2 * 3.0 * 4.0, 1e-14);
  check_close("two doubles, reverse: d/dy", g.b, 9.0, 1e-14);
  check_close("two doubles, forward", __enzyme_fwddiff((void *)area, p, tp), 24.0 - 9.0, 1e-14);

  double r = 0.25, dr = 0, dc;
  da = 0, db[0] = db[1] = 0;
  dc = __enzyme_autodiff((void *)around, enzyme_out, 1.5, s, ds, &r, &dr);
  check_close("after a marker: d/dc", dc, a * b[0], 1e-14);
  check_close("after a marker: dp", da, 1.5 * b[0], 1e-14);
  check_close("after a marker: dq[0]", db[0], 1.5 * a, 1e-14);
  check_close("after a marker: dq[1]", db[1], r, 1e-14);
  check_close("after a marker: dr", dr, b[1], 1e-14);
  return check_exit();
}
