// RUN: %check-c %s %t
// Loops built from goto: two labelled blocks that jump to each other and to
// themselves until a data-dependent exit condition holds, updating a
// two-element state in place (so the reverse sweep needs every
// intermediate state). Also a memcpy into a local guarded by an inactive
// flag that is false, inside a branch with its own loops. Reverse mode
// checked against central differences, and against forward mode.
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "check.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

void hop(double x[2])
{
  double t;
  int guard = 0;
A:
  guard++;
  t = 2 * __builtin_cos(x[0] + x[1]);
  x[0] = 1.5 * __builtin_sin(2 * x[0] + x[1]);
  x[1] = t;
  if (x[0] * x[0] < x[1] || guard > 40)
    return;
  else if (x[0] > 0)
    goto A;
  else
    goto B;
B:
  guard++;
  t = 2 * __builtin_sin(2 * x[0] + x[1]);
  x[0] = 2 * __builtin_cos(x[0] + 2 * x[1]);
  x[1] = t;
  if (x[0] * x[0] < x[1] || guard > 40)
    return;
  else if (x[0] > 0)
    goto A;
  else
    goto B;
}

static double W0 = 1.0, W1 = 2.0;
static double hop_loss(double a, double b)
{
  double x[2] = {a, b};
  hop(x);
  return W0 * x[0] + W1 * x[1];
}
static double B0;
static double hop_a(double a) { return hop_loss(a, B0); }
static double A0;
static double hop_b(double b) { return hop_loss(A0, b); }

__attribute__((noinline)) double guarded(double *v, bool fan)
{
  double unit[3];
  double r = 0.0;
  if (fan) {
    memcpy(&unit, v, 2 * sizeof(double));
    for (int i = 0; i < 2; ++i)
      r += v[i];
    r = sqrt(r);
    if (r > 0.0)
      for (int i = 0; i < 2; ++i)
        unit[i] /= r;
    return unit[0] + unit[1];
  }
  return v[0] * v[2];
}

int main(void)
{
  static const double starts[][2] = {{0.9, 0.7}, {0.2, -0.4}, {-0.5, 0.3}};
  char what[64];
  for (int s = 0; s < 3; s++) {
    A0 = starts[s][0];
    B0 = starts[s][1];
    double x[2] = {A0, B0}, dx[2] = {W0, W1};
    __enzyme_autodiff((void *)hop, x, dx);
    snprintf(what, sizeof what, "goto loops from start %d: dx0", s);
    check_close(what, dx[0], central_difference(hop_a, A0), 1e-6);
    snprintf(what, sizeof what, "goto loops from start %d: dx1", s);
    check_close(what, dx[1], central_difference(hop_b, B0), 1e-6);
    double y[2] = {A0, B0}, ty[2] = {1.0, 0.0};
    __enzyme_fwddiff((void *)hop, y, ty);
    snprintf(what, sizeof what, "goto loops from start %d: forward", s);
    check_close(what, W0 * ty[0] + W1 * ty[1], central_difference(hop_a, A0), 1e-6);
  }

  double v[3] = {1.0, 2.0, 3.0}, dv[3] = {0};
  __enzyme_autodiff((void *)guarded, enzyme_dup, v, dv, enzyme_const, false);
  check_close("guarded, flag off: dv0", dv[0], 3.0, 1e-14);
  check_close("guarded, flag off: dv1", dv[1], 0.0, 0.0);
  check_close("guarded, flag off: dv2", dv[2], 1.0, 1e-14);
  double w[3] = {1.0, 3.0, 5.0}, dw[3] = {0};
  __enzyme_autodiff((void *)guarded, enzyme_dup, w, dw, enzyme_const, true);
  /* (w0 + w1) / sqrt(w0 + w1) = sqrt(w0 + w1) */
  check_close("guarded, flag on: dw0", dw[0], 0.5 / sqrt(4.0), 1e-14);
  check_close("guarded, flag on: dw1", dw[1], 0.5 / sqrt(4.0), 1e-14);
  return check_exit();
}
