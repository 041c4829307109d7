// RUN: %check-c %s %t
// Structures passed by value once the variadic call's registers ran out:
// clang passes them in memory (byval), a pointer where the function takes
// the pieces. Each is read from that memory as its pieces, so that the
// value, and each shadow after it, still fill the function's parameters
// (these calls were errors, and in batch mode took the pointers for
// values). Integer registers run out at the second struct of pointers,
// SSE registers at the fifth struct of doubles.
#include <math.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_width;
double __enzyme_fwddiff(void *, ...);
double __enzyme_autodiff(void *, ...);
typedef struct { double d[2]; } T2;
T2 __enzyme_fwddiff2(void *, ...);

typedef struct {
  double *p;
  int n;
} Arr;
typedef struct {
  double a, b;
} AB;

double dot(Arr r, Arr q) {
  double s = 0;
  for (int i = 0; i < r.n; i++)
    s += r.p[i] * q.p[i];
  return s;
}

double five(AB u, AB v, AB w, AB x, AB y) { return u.a * v.b + w.a * w.b + sin(x.a) * y.b; }

int main(void) {
  double p[3] = {1, 2, 3}, dp[3] = {1, 0, 0}, q[3] = {4, 5, 6}, dq[3] = {0, 0, 1};
  Arr r = {p, 3}, r0 = {dp, 3}, a = {q, 3}, a0 = {dq, 3};
  check_close("forward, a struct in memory", __enzyme_fwddiff((void *)dot, enzyme_dup, r, r0, enzyme_dup, a, a0),
              q[0] + p[2], 1e-15);
  double gp[3] = {0}, gq[3] = {0};
  Arr gr = {gp, 3}, ga = {gq, 3};
  __enzyme_autodiff((void *)dot, enzyme_dup, r, gr, enzyme_dup, a, ga);
  for (int i = 0; i < 3; i++) {
    check_close("reverse, a struct in memory: d/dr", gp[i], q[i], 1e-15);
    check_close("reverse, a struct in memory: d/dq", gq[i], p[i], 1e-15);
  }

  double dq1[3] = {0, 1, 0}, dp1[3] = {0, 0, 0};
  Arr r1 = {dp1, 3}, a1 = {dq1, 3};
  T2 t = __enzyme_fwddiff2((void *)dot, enzyme_width, 2, enzyme_dup, r, r0, r1, enzyme_dup, a, a0, a1);
  check_close("batch, the shadows in memory: lane 0", t.d[0], q[0] + p[2], 1e-15);
  check_close("batch, the shadows in memory: lane 1", t.d[1], p[1], 1e-15);

  AB u = {1, 2}, v = {3, 4}, w = {5, 6}, x = {0.5, 7}, y = {8, 9}, z = {0, 0}, one_a = {1, 0}, one_b = {0, 1};
  double d = __enzyme_fwddiff((void *)five, enzyme_dup, u, one_a, enzyme_dup, v, one_b, enzyme_dup, w, one_a,
                              enzyme_dup, x, one_a, enzyme_dup, y, one_b);
  check_close("forward, doubles in memory", d, v.b + u.a + w.b + cos(x.a) * y.b + sin(x.a), 1e-14);
  T2 s = __enzyme_fwddiff2((void *)five, enzyme_width, 2, enzyme_dup, u, z, z, enzyme_dup, v, z, z, enzyme_const, w,
                           enzyme_dup, x, one_a, z, enzyme_dup, y, z, one_b);
  check_close("batch, doubles in memory: lane 0", s.d[0], cos(x.a) * y.b, 1e-14);
  check_close("batch, doubles in memory: lane 1", s.d[1], sin(x.a), 1e-14);
  return check_exit();
}
