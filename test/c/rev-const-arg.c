// RUN: %check-c %s %t
// enzyme_const arguments are not differentiated: a constant scalar gets no
// gradient (and takes no slot in the result), a constant pointer gets no
// shadow and its memory is only read.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
void __enzyme_autodiff_v(void *, ...);

/* x c + c^2 + sin(x c) */
static double f(double x, double c) { return x * c + c * c + sin(x * c); }

/* sum a[i] b[i]^2 */
static double wdot(const double *a, const double *b, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i] * b[i];
  return s;
}

/* y[i] = c * x[i] * x[i] with c const */
static void scale(double c, const double *x, double *y, int n)
{
  for (int i = 0; i < n; i++)
    y[i] = c * x[i] * x[i];
}

int main(void)
{
  volatile double vx = 0.9, vc = 1.6;
  double x = vx, c = vc;

  check_close("d/dx, c const", __enzyme_autodiff((void *)f, enzyme_out, x, enzyme_const, c),
              c + c * cos(x * c), 1e-13);
  check_close("d/dc, x const", __enzyme_autodiff((void *)f, enzyme_const, x, enzyme_out, c),
              x + 2 * c + x * cos(x * c), 1e-13);

  enum { N = 5 };
  double a[N] = {1.0, -2.0, 0.5, 3.0, 0.25}, b[N] = {0.3, 1.1, -0.7, 2.0, -1.5};
  double db[N] = {0}, da[N] = {0};
  __enzyme_autodiff_v((void *)wdot, enzyme_const, a, enzyme_dup, b, db, enzyme_const, N);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "wdot, a const: db[%d]", i);
    check_close(what, db[i], 2 * a[i] * b[i], 1e-13);
  }
  __enzyme_autodiff_v((void *)wdot, enzyme_dup, a, da, enzyme_const, b, enzyme_const, N);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "wdot, b const: da[%d]", i);
    check_close(what, da[i], b[i] * b[i], 1e-13);
  }

  double y[N], dy[N], dx[N] = {0};
  for (int i = 0; i < N; i++) {
    y[i] = -99.0;
    dy[i] = 1.0 + i;
  }
  __enzyme_autodiff_v((void *)scale, enzyme_const, c, enzyme_dup, b, dx, enzyme_dup, y, dy, N);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "scale, c const: dx[%d]", i);
    check_close(what, dx[i], 2 * c * b[i] * (1.0 + i), 1e-13);
    snprintf(what, sizeof what, "scale, c const: y[%d]", i);
    check_close(what, y[i], c * b[i] * b[i], 1e-13);
  }
  return check_exit();
}
