// RUN: %check-c %s %t
// Activation functions chosen at run time from a table of function
// pointers: the user's own functions and libm's (tanh, sin, exp taken by
// address), a mutable global table, and a function pointer passed as a
// const argument. Each layer's choice is an integer read from memory.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef double (*activation)(double);

static double relu(double x) { return x > 0 ? x : 0.01 * x; }
static double sigmoid(double x) { return 1 / (1 + exp(-x)); }
static double softplus(double x) { return log1p(exp(x)); }

static activation table[] = {relu, sigmoid, softplus, tanh, sin, exp};
enum { N_ACT = sizeof table / sizeof table[0], LAYERS = 6 };

static double d_act(int k, double x)
{
  switch (k) {
  case 0: return x > 0 ? 1 : 0.01;
  case 1: return sigmoid(x) * (1 - sigmoid(x));
  case 2: return sigmoid(x);
  case 3: return 1 - tanh(x) * tanh(x);
  case 4: return cos(x);
  default: return exp(x);
  }
}

/* y = act_k(w_k y + b) layer after layer */
static double network(const double *w, const int *choice, double x)
{
  double y = x;
  for (int k = 0; k < LAYERS; k++)
    y = table[choice[k]](w[k] * y + 0.1);
  return y;
}

static double apply_twice(activation f, double x) { return f(f(x) * x); }

int main(void)
{
  double w[LAYERS] = {0.9, -1.1, 0.7, 1.3, -0.5, 0.4}, dw[LAYERS] = {0};
  int choice[LAYERS] = {3, 0, 1, 2, 4, 5};
  double x = 0.35;
  double dx = __enzyme_autodiff((void *)network, enzyme_dup, w, dw, enzyme_const, choice, enzyme_out, x);

  /* The chain rule by hand: keep each layer's input and pre-activation. */
  double in[LAYERS], pre[LAYERS], y = x;
  for (int k = 0; k < LAYERS; k++) {
    in[k] = y;
    pre[k] = w[k] * y + 0.1;
    y = table[choice[k]](pre[k]);
  }
  double adj = 1;
  for (int k = LAYERS - 1; k >= 0; k--) {
    double g = adj * d_act(choice[k], pre[k]);
    char what[32];
    snprintf(what, sizeof what, "network: dw[%d]", k);
    check_close(what, dw[k], g * in[k], 1e-12);
    adj = g * w[k];
  }
  check_close("network: dx", dx, adj, 1e-12);
  check_close("network: forward", __enzyme_fwddiff((void *)network, enzyme_const, w, enzyme_const, choice, x, 1.0),
              adj, 1e-12);

  /* Another choice at run time, same derivative. */
  for (int k = 0; k < LAYERS; k++)
    choice[k] = (choice[k] + 1) % N_ACT;
  table[5] = relu;
  double tw[LAYERS] = {1, 1, 1, 1, 1, 1};
  double h = central_difference_step(1.0), wp[LAYERS], wm[LAYERS];
  for (int k = 0; k < LAYERS; k++) {
    wp[k] = w[k] + h;
    wm[k] = w[k] - h;
  }
  double fd = (network(wp, choice, x) - network(wm, choice, x)) / (2 * h);
  check_close("network, new choice: forward along (1..1)",
              __enzyme_fwddiff((void *)network, enzyme_dup, w, tw, enzyme_const, choice, enzyme_const, x), fd, 1e-6);

  for (int k = 0; k < N_ACT; k++) {
    activation f = table[k];
    double z = 0.45, fz = f(z);
    double want = d_act(k == 5 ? 0 : k, fz * z) * (d_act(k == 5 ? 0 : k, z) * z + fz);
    char what[48];
    snprintf(what, sizeof what, "apply_twice(table[%d]): reverse", k);
    check_close(what, __enzyme_autodiff((void *)apply_twice, enzyme_const, f, enzyme_out, z), want, 1e-12);
    snprintf(what, sizeof what, "apply_twice(table[%d]): forward", k);
    check_close(what, __enzyme_fwddiff((void *)apply_twice, enzyme_const, f, z, 1.0), want, 1e-12);
  }
  return check_exit();
}
