// RUN: %check-c %s %t
// Forward mode through memcpy, memmove and memset inside the differentiated
// function: copies of active memory carry their tangents along, memset
// clears them.
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);
void __enzyme_fwddiffv(void *, ...);

enum { N = 5 };

/* Copy into a local buffer, shift it right by one with memmove, then
   sum buf[i] * (i + 1): buf = {x0, x0, x1, x2, x3} */
static double copy_shift(const double *x)
{
  double buf[N];
  memcpy(buf, x, sizeof buf);
  memmove(buf + 1, buf, (N - 1) * sizeof(double));
  double s = 0.0;
  for (int i = 0; i < N; i++)
    s += buf[i] * buf[i] * (i + 1);
  return s;
}

/* Copy an active array to an output, then double the first element. */
static void copy_out(double *dst, const double *src, int n)
{
  memcpy(dst, src, n * sizeof(double));
  dst[0] *= 2.0;
}

/* Zero a buffer, fill part of it, sum it. */
static double zero_fill(double x)
{
  double buf[8];
  buf[0] = x;
  memset(buf, 0, sizeof buf);
  for (int i = 0; i < 4; i++)
    buf[2 * i] = x * i;
  double s = 0.0;
  for (int i = 0; i < 8; i++)
    s += buf[i] * x;
  return s; /* (0 + 1 + 2 + 3) x^2 = 6 x^2 */
}

/* memset on the output, then scatter the input. */
static void clear_then_set(double *out, const double *in, int n)
{
  memset(out, 0, n * sizeof(double));
  out[n / 2] = in[0] * in[2];
}

int main(void)
{
  double x[N] = {0.5, -1.0, 2.0, 1.5, 3.0};
  double dx[N] = {1.0, 2.0, 3.0, 4.0, 5.0};

  /* s = x0^2 + 2 x0^2 + 3 x1^2 + 4 x2^2 + 5 x3^2 */
  double want = 2 * x[0] * dx[0] * 3 + 3 * 2 * x[1] * dx[1] + 4 * 2 * x[2] * dx[2] + 5 * 2 * x[3] * dx[3];
  check_close("d copy_shift", __enzyme_fwddiff((void *)copy_shift, enzyme_dup, x, dx), want, 1e-14);

  double y[N], dy[N];
  for (int i = 0; i < N; i++)
    y[i] = dy[i] = -1.0;
  __enzyme_fwddiffv((void *)copy_out, enzyme_dup, y, dy, enzyme_dup, x, dx, N);
  check_close("copy_out: y[0]", y[0], 1.0, 1e-15);
  check_close("copy_out: dy[0]", dy[0], 2.0, 1e-15);
  check_close("copy_out: dy[3]", dy[3], 4.0, 1e-15);
  check_close("copy_out: dy[4]", dy[4], 5.0, 1e-15);

  volatile double vz = 0.8;
  check_close("d zero_fill", __enzyme_fwddiff((void *)zero_fill, enzyme_dup, (double)vz, 1.0), 12.0 * vz, 1e-14);

  for (int i = 0; i < N; i++)
    y[i] = dy[i] = 7.0;
  __enzyme_fwddiffv((void *)clear_then_set, enzyme_dup, y, dy, enzyme_dup, x, dx, N);
  check_close("clear_then_set: dy[0] cleared", dy[0], 0.0, 1e-15);
  check_close("clear_then_set: dy[4] cleared", dy[4], 0.0, 1e-15);
  check_close("clear_then_set: dy[2]", dy[2], dx[0] * x[2] + x[0] * dx[2], 1e-15);
  check_close("clear_then_set: y[2]", y[2], 1.0, 1e-15);
  return check_exit();
}
