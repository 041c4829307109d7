// RUN: %check-c %s %t
// Reverse mode with structs of doubles behind dup pointers: the gradient of
// each field is accumulated into the same field of the shadow struct; a void
// function writing a result struct is seeded through the shadow of the
// result, which reads as consumed afterwards.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
void __enzyme_autodiff_v(void *, ...);
double __enzyme_autodiff(void *, ...);

struct vec3 { double x, y, z; };

/* x y + z^2 + sin(x) */
static double energy(const struct vec3 *p) { return p->x * p->y + p->z * p->z + sin(p->x); }

/* cross product c = a x b */
static void cross(const struct vec3 *a, const struct vec3 *b, struct vec3 *c)
{
  c->x = a->y * b->z - a->z * b->y;
  c->y = a->z * b->x - a->x * b->z;
  c->z = a->x * b->y - a->y * b->x;
}

/* |p|^2 scaled by an active k */
static double scaled_norm2(const struct vec3 *p, double k) { return k * (p->x * p->x + p->y * p->y + p->z * p->z); }

int main(void)
{
  struct vec3 p = {0.7, -1.1, 2.0}, dp = {0, 0, 0};
  __enzyme_autodiff_v((void *)energy, enzyme_dup, &p, &dp);
  check_close("energy: dp.x", dp.x, p.y + cos(p.x), 1e-13);
  check_close("energy: dp.y", dp.y, p.x, 1e-13);
  check_close("energy: dp.z", dp.z, 2 * p.z, 1e-13);

  struct vec3 a = {1.0, 2.0, 3.0}, b = {-0.5, 0.25, 1.5}, c = {0, 0, 0};
  struct vec3 da = {0, 0, 0}, db = {0, 0, 0}, dc = {1.0, -2.0, 0.5};
  struct vec3 w = dc;
  __enzyme_autodiff_v((void *)cross, enzyme_dup, &a, &da, enzyme_dup, &b, &db, enzyme_dup, &c, &dc);
  /* w . (a x b) = a . (b x w) = b . (w x a) */
  check_close("cross: c.x", c.x, a.y * b.z - a.z * b.y, 1e-13);
  check_close("cross: da.x", da.x, b.y * w.z - b.z * w.y, 1e-13);
  check_close("cross: da.y", da.y, b.z * w.x - b.x * w.z, 1e-13);
  check_close("cross: da.z", da.z, b.x * w.y - b.y * w.x, 1e-13);
  check_close("cross: db.x", db.x, w.y * a.z - w.z * a.y, 1e-13);
  check_close("cross: db.y", db.y, w.z * a.x - w.x * a.z, 1e-13);
  check_close("cross: db.z", db.z, w.x * a.y - w.y * a.x, 1e-13);
  check_true("cross: dc consumed", dc.x == 0.0 && dc.y == 0.0 && dc.z == 0.0);

  struct vec3 dq = {0, 0, 0};
  double k = 1.5;
  double dk = __enzyme_autodiff((void *)scaled_norm2, enzyme_dup, &p, &dq, enzyme_out, k);
  check_close("scaled_norm2: dk", dk, p.x * p.x + p.y * p.y + p.z * p.z, 1e-13);
  check_close("scaled_norm2: dq.x", dq.x, 2 * k * p.x, 1e-13);
  check_close("scaled_norm2: dq.y", dq.y, 2 * k * p.y, 1e-13);
  check_close("scaled_norm2: dq.z", dq.z, 2 * k * p.z, 1e-13);
  return check_exit();
}
