// RUN: %check-c %s %t
// A loop whose state is a double step size that is truncated to integers
// each iteration, passed to a noinline integer function, printed with
// printf, and used to scale an output array in place; the step is updated
// at the end of the body. The entry point is declared with a typed
// function-pointer first parameter and the function passed without a cast.
// The gradient of the result with respect to the step size flows only
// through the last iteration's product.
#include <math.h>
#include <stdio.h>
#include "check.h"

__attribute__((noinline)) int cells(const int nr, const int nt) { return nr * nt + 1; }

double integrate(double dr, double *out)
{
  double dt = 1.0;
  double est = 0.0;
  for (int k = 0; k < 8; k++) {
    int nr = (int)dr;
    int nt = (int)dt;
    double sum = cells(nr, nt);
    out[k] *= nr * nt + 0.5;
    printf("k=%d cells=%d\n", k, nr * nt);
    est = sum * dr;
    dr /= 0.8;
    dt = dr / 4.0;
  }
  return est;
}

double __enzyme_autodiff(double (*)(double, double *), ...);

int main(void)
{
  double out[8], dout[8];
  for (int i = 0; i < 8; i++) {
    out[i] = 1.0;
    dout[i] = 1.0 + i;
  }
  /* the primal, by hand */
  double dr = 20.0, dt = 1.0, last_sum = 0, scale[8];
  for (int k = 0; k < 8; k++) {
    int nr = (int)dr, nt = (int)dt;
    last_sum = cells(nr, nt);
    scale[k] = nr * nt + 0.5;
    if (k < 7) {
      dr /= 0.8;
      dt = dr / 4.0;
    }
  }
  double ddr = __enzyme_autodiff(integrate, 20.0, out, dout);
  char what[64];
  for (int k = 0; k < 8; k++) {
    snprintf(what, sizeof what, "dout[%d]", k);
    check_close(what, dout[k], (1.0 + k) * scale[k], 1e-13);
    snprintf(what, sizeof what, "out[%d]", k);
    check_close(what, out[k], scale[k], 1e-13);
  }
  check_close("d est / d dr", ddr, last_sum / pow(0.8, 7), 1e-12);
  return check_exit();
}
