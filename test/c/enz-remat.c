// RUN: %check-c %s %t
// Pointers to pointers as dup arguments (enzyme_dup, &p, &dp), a constant
// table of integer index arrays (int **), and a heap temporary allocated and
// freed inside the outer loop that gathers from one array and scatters
// squares into another. Several regions write the same output elements, so
// the last write wins and earlier gradients must be dropped.
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

void gather_sq(double **pin, double **pout, int **idx, int nreg, int per)
{
  double *in = *pin;
  double *out = *pout;
  for (int r = 0; r < nreg; r++) {
    double *tmp = malloc(per * sizeof(double));
    for (int i = 0; i < per; i++)
      tmp[i] = in[idx[r][i]] * (r + 1);
    for (int i = 0; i < per; i++)
      out[idx[r][i]] = tmp[i] * tmp[i];
    free(tmp);
  }
}

int main(void)
{
  enum { M = 12, REG = 4, PER = 9 };
  double *in = malloc(M * sizeof(double)), *out = malloc(M * sizeof(double));
  double *din = malloc(M * sizeof(double)), *dout = malloc(M * sizeof(double));
  int *idx[REG];
  int last_region[M];
  for (int k = 0; k < M; k++) {
    in[k] = 0.5 + 0.1 * k;
    out[k] = 0;
    din[k] = 0;
    dout[k] = 1.0 + k;
    last_region[k] = -1;
  }
  for (int r = 0; r < REG; r++) {
    idx[r] = malloc(PER * sizeof(int));
    for (int i = 0; i < PER; i++) {
      idx[r][i] = (3 * r + 2 * i) % M;
      last_region[idx[r][i]] = r;
    }
  }
  __enzyme_autodiff((void *)gather_sq, enzyme_dup, &in, &din, enzyme_dup, &out, &dout, enzyme_const, idx, enzyme_const,
                    REG, enzyme_const, PER);
  char what[64];
  for (int k = 0; k < M; k++) {
    int r = last_region[k];
    double c = r + 1;
    double want = r < 0 ? 0.0 : (1.0 + k) * 2 * c * c * in[k];
    snprintf(what, sizeof what, "din[%d]", k);
    check_close(what, din[k], want, 1e-13);
    snprintf(what, sizeof what, "dout[%d]", k);
    check_close(what, dout[k], r < 0 ? 1.0 + k : 0.0, 0.0);
  }
  /* forward: tangent of out[k] = 2 c^2 in[k] tin[k] */
  double *tin = malloc(M * sizeof(double)), *tout = malloc(M * sizeof(double));
  for (int k = 0; k < M; k++) {
    tin[k] = 1.0;
    tout[k] = 0.0;
  }
  __enzyme_fwddiff((void *)gather_sq, enzyme_dup, &in, &tin, enzyme_dup, &out, &tout, enzyme_const, idx, enzyme_const,
                   REG, enzyme_const, PER);
  for (int k = 0; k < M; k++) {
    int r = last_region[k];
    double c = r + 1;
    snprintf(what, sizeof what, "forward tout[%d]", k);
    check_close(what, tout[k], r < 0 ? 0.0 : 2 * c * c * in[k], 1e-13);
  }
  return check_exit();
}
