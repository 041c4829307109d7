// RUN: %check-c %s %t
// Split mode: __enzyme_augmentfwd runs the forward sweep and keeps a tape,
// __enzyme_reverse runs the reverse sweep from it later, with other work in
// between. The gradients equal __enzyme_autodiff's:
// - a void function updating an array in place (dup), tape returned;
// - a function with a result and an enzyme_out parameter: the forward sweep
//   returns {tape, result}, the reverse takes the result's seed (here 2.5)
//   and returns the parameter's gradient;
// - the tape kept in the caller's memory (enzyme_allocated, enzyme_tape);
// - a loop with data-dependent exits, whose tape records the path.
#include <math.h>
#include <string.h>
#include "check.h"

extern int enzyme_dup, enzyme_out, enzyme_const, enzyme_tape, enzyme_allocated;
void *__enzyme_augmentfwd(void *, ...);
double __enzyme_reverse(void *, ...);
double __enzyme_autodiff(void *, ...);

typedef struct {
  void *tape;
  double result;
} Augmented;
Augmented __enzyme_augmentfwd_result(void *, ...) __asm__("__enzyme_augmentfwd");
void __enzyme_augmentfwd_into(void *, ...) __asm__("__enzyme_augmentfwd");

void update(double *x, int n)
{
  for (int i = 0; i < n; i++)
    x[i] = sin(x[i]) * x[(i + 1) % n];
}

double energy(const double *p, double k)
{
  double s = 0;
  for (int i = 0; i < 3; i++)
    s += k * p[i] * p[i] + exp(-k * p[i]);
  return s;
}

double wander(double *x)
{
  double v = x[0];
  int steps = 0;
  while (v < 10.0 && steps < 50) {
    v = v * 1.5 + x[1];
    steps++;
  }
  return v;
}

int main(void)
{
  double x[4] = {0.3, -0.7, 1.1, 0.5}, dx[4] = {1, 2, 3, 4};
  double y[4], dy[4];
  memcpy(y, x, sizeof x);
  memcpy(dy, dx, sizeof dx);
  void *tape = __enzyme_augmentfwd((void *)update, enzyme_dup, x, dx, enzyme_const, 4);
  double unrelated[8] = {0};
  for (int i = 0; i < 8; i++)
    unrelated[i] = i * 0.5; /* work between the sweeps */
  __enzyme_reverse((void *)update, enzyme_dup, x, dx, enzyme_const, 4, tape);
  __enzyme_autodiff((void *)update, enzyme_dup, y, dy, enzyme_const, 4);
  for (int i = 0; i < 4; i++) {
    check_close("in-place update: primal", x[i], y[i], 1e-15);
    check_close("in-place update: gradient", dx[i], dy[i], 1e-15);
  }
  check_close("work between sweeps", unrelated[7], 3.5, 0);

  double p[3] = {0.5, 1.0, -0.25}, dp[3] = {0}, k = 0.7;
  Augmented a = __enzyme_augmentfwd_result((void *)energy, enzyme_dup, p, dp, enzyme_out, k);
  check_close("augmented result", a.result, energy(p, k), 1e-15);
  double dk = __enzyme_reverse((void *)energy, enzyme_dup, p, dp, enzyme_out, k, 2.5, a.tape);
  double want_dk = 0;
  for (int i = 0; i < 3; i++) {
    want_dk += p[i] * p[i] - p[i] * exp(-k * p[i]);
    check_close("result seeded with 2.5: dp", dp[i], 2.5 * (2 * k * p[i] - k * exp(-k * p[i])), 1e-14);
  }
  check_close("result seeded with 2.5: dk", dk, 2.5 * want_dk, 1e-14);

  double w[2] = {1.2, 0.4}, dw[2] = {0}, w2[2] = {1.2, 0.4}, dw2[2] = {0};
  char room[16];
  __enzyme_augmentfwd_into((void *)wander, enzyme_dup, w, dw, enzyme_allocated, sizeof room, enzyme_tape,
                           room);
  __enzyme_reverse((void *)wander, enzyme_dup, w, dw, 1.0, enzyme_allocated, sizeof room, enzyme_tape, room);
  __enzyme_autodiff((void *)wander, enzyme_dup, w2, dw2);
  check_close("tape in the caller's memory: dw0", dw[0], dw2[0], 1e-15);
  check_close("tape in the caller's memory: dw1", dw[1], dw2[1], 1e-15);
  check_close("loop path: dw0 = 1.5^steps (5 steps)", dw2[0], pow(1.5, 5), 1e-12);
  return check_exit();
}
