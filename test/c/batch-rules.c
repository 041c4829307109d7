// RUN: %check-c %s %t
// Batch forward mode through what is not plain arithmetic: a function
// returning a struct through a hidden pointer (the request's result holds
// one struct per lane), a registered forward derivative (called once per
// lane), complex.h's functions (a model, differentiated per lane) and
// sincos (a model inlined into the copy).
#define _GNU_SOURCE
#include <complex.h>
#include <math.h>
#include "check.h"

extern int enzyme_width;
typedef struct { double a, b, c; } V3;
typedef struct { V3 lane[2]; } V3x2;
typedef struct { double d[2]; } T2;
V3x2 __enzyme_fwddiff(void *, ...);
T2 __enzyme_fwddiff2(void *, ...);

V3 vec(double x, double y) {
  V3 v = {x * y, sin(x), y * y * y};
  return v;
}

double mysq(double x) { return x * x; }
// Not mysq's true derivative: the 1000 shows that the registration was used.
double mysq_fwd(double x, double dx) { return 2 * x * dx + 1000; }
void *__enzyme_register_derivative_mysq[] = {(void *)mysq, (void *)mysq_fwd};
double usesq(double x) { return mysq(x) * 3; }

double rotate(double x) {
  double complex z = cexp(x * I) * x;
  return creal(z) + cabs(z); // x cos x + |x|
}

double viasincos(double x) {
  double s, c;
  sincos(x, &s, &c);
  return s * c; // sin(2x) / 2
}

int main(void) {
  double x = 2.0, y = 3.0;
  V3x2 r = __enzyme_fwddiff((void *)vec, enzyme_width, 2, x, 1.0, 0.0, y, 0.0, 1.0);
  check_close("sret: lane 0, a", r.lane[0].a, y, 1e-15);
  check_close("sret: lane 0, b", r.lane[0].b, cos(x), 1e-15);
  check_close("sret: lane 0, c", r.lane[0].c, 0, 1e-15);
  check_close("sret: lane 1, a", r.lane[1].a, x, 1e-15);
  check_close("sret: lane 1, b", r.lane[1].b, 0, 1e-15);
  check_close("sret: lane 1, c", r.lane[1].c, 3 * y * y, 1e-15);

  T2 c = __enzyme_fwddiff2((void *)usesq, enzyme_width, 2, 1.5, 1.0, 2.0);
  check_close("registered: lane 0", c.d[0], 3 * (2 * 1.5 + 1000), 1e-15);
  check_close("registered: lane 1", c.d[1], 3 * (2 * 1.5 * 2 + 1000), 1e-15);

  double t = 0.7;
  T2 z = __enzyme_fwddiff2((void *)rotate, enzyme_width, 2, t, 1.0, -2.0);
  double dz = cos(t) - t * sin(t) + 1;
  check_close("complex: lane 0", z.d[0], dz, 1e-14);
  check_close("complex: lane 1", z.d[1], -2 * dz, 1e-14);

  T2 sc = __enzyme_fwddiff2((void *)viasincos, enzyme_width, 2, t, 1.0, 3.0);
  check_close("sincos: lane 0", sc.d[0], cos(2 * t), 1e-14);
  check_close("sincos: lane 1", sc.d[1], 3 * cos(2 * t), 1e-14);
  return check_exit();
}
