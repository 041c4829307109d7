// RUN: %check-c %s %t
// Building a Jacobian column by column: one forward call per unit seed, in
// a loop, on a function from R^3 to R^3 (spherical to cartesian
// coordinates). Checked against the analytic Jacobian and against its
// determinant r^2 sin(theta).
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
void __enzyme_fwddiffv(void *, ...);

/* in = (r, theta, phi) */
static void spherical(const double *in, double *out)
{
  double r = in[0], t = in[1], p = in[2];
  out[0] = r * sin(t) * cos(p);
  out[1] = r * sin(t) * sin(p);
  out[2] = r * cos(t);
}

int main(void)
{
  double in[3] = {1.5, 0.7, -0.4}, out[3], J[3][3];
  for (int j = 0; j < 3; j++) {
    double seed[3] = {0.0, 0.0, 0.0}, dout[3] = {0.0, 0.0, 0.0};
    seed[j] = 1.0;
    __enzyme_fwddiffv((void *)spherical, enzyme_dup, in, seed, enzyme_dup, out, dout);
    for (int i = 0; i < 3; i++)
      J[i][j] = dout[i];
  }
  double r = in[0], st = sin(in[1]), ct = cos(in[1]), sp = sin(in[2]), cp = cos(in[2]);
  double want[3][3] = {
      {st * cp, r * ct * cp, -r * st * sp},
      {st * sp, r * ct * sp, r * st * cp},
      {ct, -r * st, 0.0},
  };
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      char what[32];
      snprintf(what, sizeof what, "J[%d][%d]", i, j);
      check_close(what, J[i][j], want[i][j], 1e-14);
    }
  double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
               J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
               J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
  check_close("det J = r^2 sin(theta)", det, r * r * st, 1e-13);
  check_close("primal out[2]", out[2], r * ct, 1e-15);
  return check_exit();
}
