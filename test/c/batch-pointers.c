// RUN: %check-c %s %t
// Batch forward mode on memory: W shadows of each pointer, one after the
// other (enzyme_dup, x, dx0, dx1, dx2) or as one array of lanes with a stride
// (enzyme_dupv, stride, x, dx; the stride here leaves a gap between lanes,
// which must stay untouched), and enzyme_dupnoneedv. The function copies
// into heap scratch (malloc, memcpy, free), loops, calls a helper taking
// pointers, reads a struct through a pointer to pointer (its shadow struct
// per lane, with a tangent of the scale in one lane and of a weight in
// another), and writes its outputs: each lane's output tangents are the
// Jacobian times that lane's input tangents.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

extern int enzyme_width, enzyme_dup, enzyme_dupv, enzyme_dupnoneedv, enzyme_const;
void __enzyme_fwddiff(void *, ...);

enum { N = 4, W = 3, GAP = 2 };

typedef struct {
  double scale;
  const double *weights;
} Params;

static void weigh(const double *in, const double *w, double *out, int n) {
  for (int i = 0; i < n; i++)
    out[i] = in[i] * w[i];
}

// y[i] = scale * w[i] * x[i]^2 + exp(x[(i + 1) % n])
void model(const double *x, Params **pp, double *y, int n) {
  const Params *p = *pp;
  double *sq = malloc(n * sizeof *sq);
  memcpy(sq, x, n * sizeof *sq);
  for (int i = 0; i < n; i++)
    sq[i] *= x[i];
  weigh(sq, p->weights, y, n);
  for (int i = 0; i < n; i++)
    y[i] = p->scale * y[i] + exp(x[(i + 1) % n]);
  free(sq);
}

static double jacobian(const double *x, const Params *p, int i, int j) {
  double d = 0;
  if (i == j)
    d += 2 * p->scale * p->weights[i] * x[i];
  if (j == (i + 1) % N)
    d += exp(x[j]);
  return d;
}

int main(void) {
  double x[N] = {0.3, -0.2, 0.5, 1.1}, w[N] = {1.5, -2.0, 0.25, 3.0}, dw[W][N] = {{0}}, y[N];
  // Lane 1 also moves the scale, lane 2 one weight.
  dw[2][3] = 1;
  Params params = {0.8, w}, dparams[W] = {{0, dw[0]}, {1, dw[1]}, {0, dw[2]}};
  Params *pp = &params, *dpp[W] = {&dparams[0], &dparams[1], &dparams[2]};
  double dir[W][N] = {{1, 0, 0, 0}, {0, 1, 1, 0}, {0.5, -1, 0, 2}};
  char what[80];

  // One shadow argument per lane.
  double dy[W][N] = {{0}};
  __enzyme_fwddiff((void *)model, enzyme_width, W, enzyme_dup, x, dir[0], dir[1], dir[2], enzyme_dup, &pp, &dpp[0],
                   &dpp[1], &dpp[2], enzyme_dup, y, dy[0], dy[1], dy[2], enzyme_const, N);
  for (int k = 0; k < W; k++)
    for (int i = 0; i < N; i++) {
      double want = 0;
      for (int j = 0; j < N; j++)
        want += jacobian(x, &params, i, j) * dir[k][j];
      want += (dparams[k].scale * w[i] + params.scale * dw[k][i]) * x[i] * x[i];
      snprintf(what, sizeof what, "separate shadows: lane %d, y[%d]", k, i);
      check_close(what, dy[k][i], want, 1e-13);
    }
  for (int i = 0; i < N; i++)
    check_close("primal", y[i], params.scale * w[i] * x[i] * x[i] + exp(x[(i + 1) % N]), 1e-14);

  // The lanes in one array each, GAP doubles apart; the gaps must stay as they were.
  double din[W][N + GAP], dout[W][N + GAP];
  for (int k = 0; k < W; k++)
    for (int i = 0; i < N + GAP; i++) {
      din[k][i] = i < N ? dir[k][i] : 99;
      dout[k][i] = -7;
    }
  double y2[N];
  __enzyme_fwddiff((void *)model, enzyme_width, W, enzyme_dupv, sizeof din[0], x, din, enzyme_dup, &pp, &dpp[0],
                   &dpp[1], &dpp[2], enzyme_dupnoneedv, sizeof dout[0], y2, dout, enzyme_const, N);
  for (int k = 0; k < W; k++) {
    for (int i = 0; i < N; i++) {
      snprintf(what, sizeof what, "strided lanes: lane %d, y[%d]", k, i);
      check_close(what, dout[k][i], dy[k][i], 1e-15);
    }
    for (int i = N; i < N + GAP; i++)
      check_true("strided lanes: the gap is untouched", dout[k][i] == -7 && din[k][i] == 99);
  }
  return check_exit();
}
