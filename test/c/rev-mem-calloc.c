// RUN: %check-c %s %t
// Reverse mode through a calloc'd temporary inside the function: a zeroed
// two-bin histogram accumulating active values (bin[i % 2] += x[i] k),
// freed before returning, with k active too.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);

enum { N = 6 };

/* calloc'd histogram of two bins: bin[i % 2] += x[i] * k; return bin0 * bin1 */
static double bins(const double *x, double k, int n)
{
  double *bin = calloc(2, sizeof *bin);
  for (int i = 0; i < n; i++)
    bin[i % 2] += x[i] * k;
  double r = bin[0] * bin[1];
  free(bin);
  return r;
}

int main(void)
{
  double x[N] = {0.5, -1.0, 2.0, 0.25, 1.5, -0.75}, dx[N] = {0};

  double b0 = 0.0, b1 = 0.0, k = 1.25;
  for (int i = 0; i < N; i++) {
    if (i % 2 == 0)
      b0 += x[i];
    else
      b1 += x[i];
  }
  double dk = __enzyme_autodiff((void *)bins, enzyme_dup, x, dx, enzyme_out, k, N);
  check_close("bins: dk", dk, 2 * k * b0 * b1, 1e-13);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "bins: dx[%d]", i);
    check_close(what, dx[i], k * k * (i % 2 == 0 ? b1 : b0), 1e-13);
  }
  return check_exit();
}
