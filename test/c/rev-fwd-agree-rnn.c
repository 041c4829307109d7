// RUN: %check-c %s %t
// Reverse mode agrees with forward mode on a recurrent loop (the dot-product
// test): h_{t+1} = tanh(W h_t + x_t) over T steps, with the weight matrix W
// and the inputs x both active, local arrays for the state. For random
// directions u and w, w . (J u) from __enzyme_fwddiff equals (J^T w) . u from
// __enzyme_autodiff; one gradient entry is checked against a central
// difference.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
void __enzyme_autodiff_v(void *, ...);
void __enzyme_fwddiff_v(void *, ...);

static unsigned long long rng_state = 88172645463325252ULL;
static double rnd(void) /* uniform in [-1, 1) */
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static double dotn(const double *a, const double *b, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

enum { H = 3, T = 5 };

/* h_{t+1} = tanh(W h_t + x_t), h_0 = 0; out = h_T */
static void rnn(const double *w, const double *x, double *out)
{
  double h[H] = {0, 0, 0};
  for (int t = 0; t < T; t++) {
    double nh[H];
    for (int i = 0; i < H; i++) {
      double s = x[t];
      for (int j = 0; j < H; j++)
        s += w[i * H + j] * h[j];
      nh[i] = tanh(s + 0.1 * i);
    }
    for (int i = 0; i < H; i++)
      h[i] = nh[i];
  }
  for (int i = 0; i < H; i++)
    out[i] = h[i];
}

int main(void)
{
  /* the inputs are W (H*H) and x (T) */
  double W[H * H], Wu[H * H], Wb[H * H], xs[T], xu[T], xsb[T], out[H], outdot[H], outb[H], wo[H];
  for (int i = 0; i < H * H; i++) {
    W[i] = 0.5 * rnd();
    Wu[i] = rnd();
    Wb[i] = 0.0;
  }
  for (int t = 0; t < T; t++) {
    xs[t] = rnd();
    xu[t] = rnd();
    xsb[t] = 0.0;
  }
  for (int i = 0; i < H; i++) {
    wo[i] = rnd();
    outb[i] = wo[i];
    outdot[i] = 0.0;
  }
  __enzyme_fwddiff_v((void *)rnn, enzyme_dup, W, Wu, enzyme_dup, xs, xu, enzyme_dup, out, outdot);
  __enzyme_autodiff_v((void *)rnn, enzyme_dup, W, Wb, enzyme_dup, xs, xsb, enzyme_dup, out, outb);
  check_close("rnn: w.(J u) == (J^T w).u", dotn(Wb, Wu, H * H) + dotn(xsb, xu, T), dotn(wo, outdot, H), 1e-12);
  check_true("rnn: the gradient is not zero", dotn(Wb, Wb, H * H) > 1e-6 && dotn(xsb, xsb, T) > 1e-6);
  /* and one reverse component against a central difference */
  double hstep = 1e-6, op[H], om[H], saved = W[4];
  W[4] = saved + hstep;
  rnn(W, xs, op);
  W[4] = saved - hstep;
  rnn(W, xs, om);
  W[4] = saved;
  double fd = 0.0;
  for (int i = 0; i < H; i++)
    fd += wo[i] * (op[i] - om[i]) / (2 * hstep);
  check_close("rnn: dW[4] vs central difference", Wb[4], fd, 1e-5);

  return check_exit();
}
