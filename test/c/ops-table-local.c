// A C "ops table": a local struct of function pointers, and a layer struct
// pointing to it, handed to a helper that calls through them. The helper
// takes a local holding addresses of locals, so it is inlined into the copy
// being differentiated (rule_inline_host_calls); its indirect calls came in
// after the copy's indirect calls had been compared with their candidates
// and were refused ("it makes an indirect call with differentiated
// arguments"). They are compared after the inlining too.
// RUN: %check-c %s %t
#include <math.h>

#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef struct Ops {
  double (*act)(double);
  double (*dact)(double);
} Ops;

static double softplus(double x) { return log1p(exp(x)); }
static double sigmoid(double x) { return 1 / (1 + exp(-x)); }
static double square(double x) { return x * x; }
static double twice(double x) { return 2 * x; }

typedef struct Layer {
  const Ops *ops;
  double w[3];
  double b;
} Layer;

static double layer_eval(const Layer *L, const double *in) {
  double z = L->b;
  for (int i = 0; i < 3; i++)
    z += L->w[i] * in[i];
  return L->ops->act(z) + 0.1 * L->ops->dact(z);
}

static double net(double x) {
  Ops smooth = {softplus, sigmoid}, poly = {square, twice};
  Layer a = {&smooth, {0.3, -0.2, 0.5}, 0.1}, b = {&poly, {1.0, 0.5, -0.25}, 0.0};
  double in[3] = {x, 2 * x, 1.0};
  double h = layer_eval(&a, in);
  double in2[3] = {h, x, h * x};
  return layer_eval(&b, in2);
}

int main(void) {
  for (double x = -0.8; x < 1.5; x += 0.55)
    check_both_modes(net, x, 1e-6);
  return check_exit();
}
