// RUN: %check-c %s %t
// Reverse mode through structures that mix integers, floats, doubles and
// pointers: a divide-and-conquer sum over a data pointer held behind a
// pointer (a heap copy of the handle is made at each split, as a tiling code
// would), and an energy over an array of particle records each holding a
// pointer to its position. Shadow records hold shadow pointers.
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);

typedef double *Frame;

double tile_sum(Frame *frame, int lo, int hi)
{
  if (hi - lo > 3) {
    int mid = lo + (hi - lo) / 2;
    Frame *copy = malloc(sizeof(Frame));
    *copy = *frame;
    double a = tile_sum(copy, lo, mid);
    double b = tile_sum(copy, mid, hi);
    free(copy);
    return a + b;
  }
  double s = 0.0;
  long long c = lo;
  if (c < hi)
    do {
      s += (*frame)[c] * (*frame)[c] * (double)(c + 1);
      c++;
    } while (c < hi);
  return s;
}

void tile_loss(Frame *frame, int n, double *loss) { *loss = tile_sum(frame, 0, n); }

struct particle {
  int id;
  float charge;
  double mass;
  double *pos; /* 3 doubles */
  long flags;
};

double energy(const struct particle *p, int n)
{
  double e = 0.0;
  for (int i = 0; i < n; i++) {
    double r2 = 0.0;
    for (int k = 0; k < 3; k++)
      r2 += p[i].pos[k] * p[i].pos[k];
    double w = (p[i].flags & 1) ? 2.0 : 1.0;
    e += w * p[i].mass * r2 + p[i].charge * p[i].mass * (double)p[i].id;
  }
  return e;
}

int main(void)
{
  enum { N = 13 };
  char what[64];
  double *data = malloc(sizeof(double) * N), *ddata = malloc(sizeof(double) * N);
  for (int i = 0; i < N; i++) {
    data[i] = 0.5 + 0.25 * i;
    ddata[i] = 0.0;
  }
  Frame *frame = malloc(sizeof(Frame)), *dframe = malloc(sizeof(Frame));
  *frame = data;
  *dframe = ddata;
  double loss = 0.0, dloss = 1.0;
  __enzyme_autodiff((void *)tile_loss, frame, dframe, N, &loss, &dloss);
  double want = 0;
  for (int i = 0; i < N; i++) {
    want += data[i] * data[i] * (i + 1);
    snprintf(what, sizeof what, "tile ddata[%d]", i);
    check_close(what, ddata[i], 2.0 * data[i] * (i + 1), 1e-13);
  }
  check_close("tile loss", loss, want, 1e-13);

  enum { P = 3 };
  double pos[P][3] = {{1.0, 2.0, -1.0}, {0.5, -0.5, 3.0}, {-2.0, 0.1, 0.2}};
  double dpos[P][3] = {{0}};
  struct particle ps[P], dps[P];
  for (int i = 0; i < P; i++) {
    ps[i] = (struct particle){.id = i + 1, .charge = 0.5f * (float)(i + 1), .mass = 1.0 + i, .pos = pos[i], .flags = i};
    dps[i] = (struct particle){.id = 0, .charge = 0.0f, .mass = 0.0, .pos = dpos[i], .flags = 0};
  }
  __enzyme_autodiff((void *)energy, ps, dps, P);
  for (int i = 0; i < P; i++) {
    double r2 = 0;
    for (int k = 0; k < 3; k++)
      r2 += pos[i][k] * pos[i][k];
    double w = (i & 1) ? 2.0 : 1.0;
    snprintf(what, sizeof what, "particle %d: dmass", i);
    check_close(what, dps[i].mass, w * r2 + ps[i].charge * (double)ps[i].id, 1e-12);
    snprintf(what, sizeof what, "particle %d: dcharge", i);
    check_close(what, dps[i].charge, ps[i].mass * ps[i].id, 1e-6);
    for (int k = 0; k < 3; k++) {
      snprintf(what, sizeof what, "particle %d: dpos[%d]", i, k);
      check_close(what, dpos[i][k], 2.0 * w * ps[i].mass * pos[i][k], 1e-12);
    }
    check_true("shadow integer fields untouched", dps[i].id == 0 && dps[i].flags == 0);
  }
  free(data);
  free(ddata);
  free(frame);
  free(dframe);
  return check_exit();
}
