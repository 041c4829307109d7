// RUN: %check-c %s %t
// Structures passed and returned by value: a pair of doubles (passed in two
// registers), a three-double vector (passed in memory, byval), a struct of
// a float and a double, and functions returning structs by value whose
// fields are then combined. The large struct is given to forward mode by
// value with its tangent right after it (dup); small structs, which the
// calling convention splits into scalars, go through pointer wrappers.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);
double __enzyme_autodiff(void *, ...);

typedef struct {
  double x, y;
} P2;
typedef struct {
  double x, y, z;
} V3;
typedef struct {
  float f;
  double d;
} FD;

double norm2(P2 p) { return sqrt(p.x * p.x + p.y * p.y); }
double dot3(V3 a, V3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
double mix(FD s) { return (double)s.f * s.d * s.d; }

V3 cross(V3 a, V3 b) { return (V3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
P2 polar(double r, double t) { return (P2){r * cos(t), r * sin(t)}; }

double norm2_ptr(const P2 *p) { return norm2(*p); }
double mix_ptr(const FD *s) { return mix(*s); }

double triple(const V3 *a, const V3 *b, const V3 *c)
{
  V3 w = cross(*a, *b);
  return dot3(w, *c);
}

double from_polar(double r, double t)
{
  P2 p = polar(r, t);
  return p.x * p.x * p.y;
}

int main(void)
{
  V3 a = {1, 2, 3}, b = {-1, 0.5, 2}, ta = {0, 1, 0}, tb = {1, 0, 0};
  check_close("vector by value, forward", __enzyme_fwddiff((void *)dot3, enzyme_dup, a, ta, enzyme_dup, b, tb),
              b.y + a.x, 1e-14);
  /* small structs are split into registers by the calling convention, so
   * they are passed to the entry points through a wrapper taking pointers */

  P2 p = {3.0, 4.0}, tp = {1.0, 2.0}, dp = {0, 0};
  check_close("pair by value inside, forward", __enzyme_fwddiff((void *)norm2_ptr, &p, &tp), (3.0 + 8.0) / 5.0, 1e-14);
  __enzyme_autodiff((void *)norm2_ptr, &p, &dp);
  check_close("pair by value inside, reverse dx", dp.x, 0.6, 1e-14);
  check_close("pair by value inside, reverse dy", dp.y, 0.8, 1e-14);
  FD s = {1.5f, 2.0}, ts = {1.0f, 1.0}, ds = {0.0f, 0.0};
  check_close("float and double by value inside, forward", __enzyme_fwddiff((void *)mix_ptr, &s, &ts),
              4.0 + 2 * 1.5 * 2.0, 1e-6);
  __enzyme_autodiff((void *)mix_ptr, &s, &ds);
  check_close("float and double by value inside, reverse df", ds.f, 4.0, 1e-6);
  check_close("float and double by value inside, reverse dd", ds.d, 2 * 1.5 * 2.0, 1e-6);

  V3 c = {0.5, -1, 1}, da = {0}, db = {0}, dc = {0};
  __enzyme_autodiff((void *)triple, &a, &da, &b, &db, &c, &dc);
  V3 bxc = cross(b, c), cxa = cross(c, a), axb = cross(a, b);
  check_close("struct return in reverse: da.x", da.x, bxc.x, 1e-14);
  check_close("struct return in reverse: da.z", da.z, bxc.z, 1e-14);
  check_close("struct return in reverse: db.y", db.y, cxa.y, 1e-14);
  check_close("struct return in reverse: dc.x", dc.x, axb.x, 1e-14);
  check_close("struct return in reverse: dc.z", dc.z, axb.z, 1e-14);

  double r = 1.5, t = 0.4;
  /* r^3 cos^2 t sin t */
  check_close("pair returned by value, reverse", __enzyme_autodiff((void *)from_polar, r, enzyme_const, t),
              3 * r * r * cos(t) * cos(t) * sin(t), 1e-14);
  check_close("pair returned by value, forward", __enzyme_fwddiff((void *)from_polar, r, 0.0, t, 1.0),
              r * r * r * (-2 * cos(t) * sin(t) * sin(t) + cos(t) * cos(t) * cos(t)), 1e-14);
  return check_exit();
}
