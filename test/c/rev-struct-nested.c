// RUN: %check-c %s %t
// A model held in one struct: arrays of weights inside nested structs, an
// integer size read from the same struct, and a nested anonymous struct of
// prior parameters. enzyme_dup on the struct pointer accumulates every
// field's gradient into the shadow struct; the integer fields of the shadow
// are left alone. Forward mode with a tangent struct agrees (dot product).
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

enum { IN = 3, HID = 2 };

struct layer {
  double w[HID][IN];
  double b[HID];
};

struct model {
  int n_used; /* how many hidden units are used: an integer inside the dup struct */
  struct layer hidden;
  double out_w[HID];
  struct {
    double mu, log_sigma;
  } prior;
};

static double loss(const struct model *m, const double *x, double target)
{
  double y = 0;
  for (int j = 0; j < m->n_used; j++) {
    double z = m->hidden.b[j];
    for (int i = 0; i < IN; i++)
      z += m->hidden.w[j][i] * x[i];
    y += m->out_w[j] * tanh(z);
  }
  double r = y - target;
  double penalty = 0;
  double s = exp(m->prior.log_sigma);
  for (int j = 0; j < HID; j++)
    penalty += (m->out_w[j] - m->prior.mu) * (m->out_w[j] - m->prior.mu) / (s * s);
  return 0.5 * r * r + 0.1 * penalty + m->prior.log_sigma;
}

/* The addresses of the struct's doubles, in one list, for finite differences. */
static int fields(struct model *m, double **out)
{
  int n = 0;
  for (int j = 0; j < HID; j++) {
    for (int i = 0; i < IN; i++)
      out[n++] = &m->hidden.w[j][i];
    out[n++] = &m->hidden.b[j];
    out[n++] = &m->out_w[j];
  }
  out[n++] = &m->prior.mu;
  out[n++] = &m->prior.log_sigma;
  return n;
}

int main(void)
{
  struct model m = {.n_used = HID,
                    .hidden = {.w = {{0.3, -0.2, 0.5}, {-0.4, 0.1, 0.7}}, .b = {0.05, -0.1}},
                    .out_w = {0.8, -0.6},
                    .prior = {0.1, -0.3}};
  const double x[IN] = {1.0, -0.5, 0.25};
  double target = 0.4;

  struct model dm;
  memset(&dm, 0, sizeof dm);
  dm.n_used = 12345; /* the shadow of an integer: never read, never written */
  __enzyme_autodiff((void *)loss, enzyme_dup, &m, &dm, enzyme_const, x, enzyme_const, target);
  check_true("shadow integer untouched", dm.n_used == 12345);

  double *p[32], *dp[32];
  int n = fields(&m, p);
  fields(&dm, dp);
  for (int k = 0; k < n; k++) {
    double saved = *p[k], h = central_difference_step(saved);
    *p[k] = saved + h;
    double up = loss(&m, x, target);
    *p[k] = saved - h;
    double down = loss(&m, x, target);
    *p[k] = saved;
    char what[64];
    snprintf(what, sizeof what, "reverse: field %d", k);
    check_close(what, *dp[k], (up - down) / (2 * h), 1e-6);
  }

  /* Forward mode along a direction t: the tangent is grad . t. */
  struct model t;
  memset(&t, 0, sizeof t);
  double *tp[32];
  fields(&t, tp);
  double want = 0;
  for (int k = 0; k < n; k++) {
    *tp[k] = 0.1 * (k + 1) * (k % 2 ? -1 : 1);
    want += *tp[k] * *dp[k];
  }
  double got = __enzyme_fwddiff((void *)loss, enzyme_dup, &m, &t, enzyme_const, x, enzyme_const, target);
  check_close("forward: tangent = grad . t", got, want, 1e-12);

  /* Fewer hidden units used: the gradient of the unused unit's weights is 0. */
  m.n_used = 1;
  memset(&dm, 0, sizeof dm);
  __enzyme_autodiff((void *)loss, enzyme_dup, &m, &dm, enzyme_const, x, enzyme_const, target);
  check_close("unused unit: dw[1][0]", dm.hidden.w[1][0], 0.0, 0);
  check_close("unused unit: db[1]", dm.hidden.b[1], 0.0, 0);
  check_true("unused unit: dout_w[1] from the prior only", dm.out_w[1] != 0.0);
  return check_exit();
}
