// RUN: %check-c %s %t
// Forward mode with structs passed by pointer: a struct of doubles (input
// and in-place output), an array of structs, and a struct mixing int and
// double fields (the ints are read for control flow only).
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);
void __enzyme_fwddiffv(void *, ...);

struct vec3 { double x, y, z; };

static double norm2(const struct vec3 *v) { return v->x * v->x + v->y * v->y + v->z * v->z; }

/* v = v * s (s active) */
static void scale(struct vec3 *v, double s)
{
  v->x *= s;
  v->y *= s;
  v->z *= s;
}

/* cross product into an output struct */
static void cross(const struct vec3 *a, const struct vec3 *b, struct vec3 *out)
{
  out->x = a->y * b->z - a->z * b->y;
  out->y = a->z * b->x - a->x * b->z;
  out->z = a->x * b->y - a->y * b->x;
}

struct particle {
  int id;
  double mass;
  int flags;
  double pos[2];
};

/* sum over particles with flags & 1 of (id+1) mass |pos|^2 */
static double energy(const struct particle *p, int n)
{
  double e = 0.0;
  for (int i = 0; i < n; i++) {
    if (!(p[i].flags & 1))
      continue;
    e += (p[i].id + 1) * p[i].mass * (p[i].pos[0] * p[i].pos[0] + p[i].pos[1] * p[i].pos[1]);
  }
  return e;
}

int main(void)
{
  struct vec3 v = {1.0, -2.0, 0.5}, dv = {0.1, 0.2, 0.3};
  check_close("d norm2", __enzyme_fwddiff((void *)norm2, enzyme_dup, &v, &dv),
              2 * (1.0 * 0.1 + -2.0 * 0.2 + 0.5 * 0.3), 1e-14);

  struct vec3 w = v, dw = dv;
  __enzyme_fwddiffv((void *)scale, enzyme_dup, &w, &dw, enzyme_dup, 3.0, 2.0);
  check_close("scale: w.y", w.y, -6.0, 1e-15);
  check_close("scale: dw.x", dw.x, 0.1 * 3.0 + 1.0 * 2.0, 1e-14);
  check_close("scale: dw.y", dw.y, 0.2 * 3.0 + -2.0 * 2.0, 1e-14);
  check_close("scale: dw.z", dw.z, 0.3 * 3.0 + 0.5 * 2.0, 1e-14);

  struct vec3 a = {1.0, 2.0, 3.0}, da = {0.0, 1.0, 0.0};
  struct vec3 b = {-1.0, 0.5, 2.0}, db = {1.0, 0.0, 0.0};
  struct vec3 o, dout;
  memset(&dout, 0, sizeof dout);
  __enzyme_fwddiffv((void *)cross, enzyme_dup, &a, &da, enzyme_dup, &b, &db, enzyme_dup, &o, &dout);
  /* d(a x b) = da x b + a x db */
  struct vec3 t1 = {da.y * b.z - da.z * b.y, da.z * b.x - da.x * b.z, da.x * b.y - da.y * b.x};
  struct vec3 t2 = {a.y * db.z - a.z * db.y, a.z * db.x - a.x * db.z, a.x * db.y - a.y * db.x};
  check_close("cross: o.z", o.z, 1.0 * 0.5 - 2.0 * -1.0, 1e-15);
  check_close("cross: dout.x", dout.x, t1.x + t2.x, 1e-14);
  check_close("cross: dout.y", dout.y, t1.y + t2.y, 1e-14);
  check_close("cross: dout.z", dout.z, t1.z + t2.z, 1e-14);

  struct particle p[3] = {
      {0, 2.0, 1, {1.0, 2.0}},
      {1, 3.0, 0, {5.0, 5.0}},
      {2, 0.5, 3, {-1.0, 0.5}},
  };
  struct particle dp[3];
  memset(dp, 0, sizeof dp);
  for (int i = 0; i < 3; i++) {
    dp[i].mass = 0.5;
    dp[i].pos[0] = 1.0;
    dp[i].pos[1] = -1.0;
  }
  /* particle 0: 1 * (dm r2 + m (2x dx + 2y dy)) = 0.5*5 + 2*(2 - 4) = -1.5
     particle 1 skipped;  particle 2: 3 * (0.5*1.25 + 0.5*(-2 - 1)) = -2.625 */
  check_close("d energy", __enzyme_fwddiff((void *)energy, enzyme_dup, p, dp, 3), -1.5 + -2.625, 1e-14);
  return check_exit();
}
