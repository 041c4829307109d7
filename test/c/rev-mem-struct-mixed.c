// RUN: %check-c %s %t
// Reverse mode with a struct mixing int, char, double and a double array:
// only the double fields get gradients; the integer fields of the shadow
// hold what the caller put there (a copy of the primal, as is usual) and
// are not changed.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
void __enzyme_autodiff_v(void *, ...);

struct rec {
  int n;
  double w;
  char tag;
  double v[3];
  long id;
};

/* w * n * sum v[i]^2, plus tag * w */
static double score(const struct rec *r)
{
  double s = 0.0;
  for (int i = 0; i < 3; i++)
    s += r->v[i] * r->v[i];
  return r->w * r->n * s + r->tag * r->w;
}

/* Writes: out->w = in->w * in->v[in->n - 1]; out->v[i] = in->v[i] * in->n */
static void transform(const struct rec *in, struct rec *out)
{
  out->n = in->n;
  out->w = in->w * in->v[in->n - 1];
  for (int i = 0; i < 3; i++)
    out->v[i] = in->v[i] * in->n;
}

int main(void)
{
  struct rec r = {3, 0.5, 2, {1.0, -2.0, 0.75}, 42};
  struct rec dr = r; /* the shadow starts as a copy: integers as the primal */
  dr.w = 0.0;
  for (int i = 0; i < 3; i++)
    dr.v[i] = 0.0;
  double s = 1.0 + 4.0 + 0.5625;

  __enzyme_autodiff_v((void *)score, enzyme_dup, &r, &dr);
  check_close("score: dw", dr.w, r.n * s + r.tag, 1e-13);
  for (int i = 0; i < 3; i++) {
    char what[64];
    snprintf(what, sizeof what, "score: dv[%d]", i);
    check_close(what, dr.v[i], 2 * r.w * r.n * r.v[i], 1e-13);
  }
  check_true("score: shadow int fields unchanged", dr.n == 3 && dr.tag == 2 && dr.id == 42);

  struct rec out = {0, 0.0, 0, {0, 0, 0}, 0}, dout = {0, 1.5, 0, {1.0, 2.0, 3.0}, 0};
  struct rec din = r;
  din.w = 0.0;
  for (int i = 0; i < 3; i++)
    din.v[i] = 0.0;
  __enzyme_autodiff_v((void *)transform, enzyme_dup, &r, &din, enzyme_dup, &out, &dout);
  check_close("transform: out.w", out.w, r.w * r.v[2], 1e-13);
  check_close("transform: din.w", din.w, 1.5 * r.v[2], 1e-13);
  check_close("transform: din.v[0]", din.v[0], 1.0 * r.n, 1e-13);
  check_close("transform: din.v[1]", din.v[1], 2.0 * r.n, 1e-13);
  check_close("transform: din.v[2]", din.v[2], 3.0 * r.n + 1.5 * r.w, 1e-13);
  check_true("transform: dout's doubles consumed",
             dout.w == 0.0 && dout.v[0] == 0.0 && dout.v[1] == 0.0 && dout.v[2] == 0.0);
  return check_exit();
}
