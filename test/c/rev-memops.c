// RUN: %check-c %s %t
// Memory functions inside differentiated code: memcpy into a scratch
// buffer, memmove shifting a window in place (overlapping), memset clearing
// part of it; a heap copy shifted with memmove and freed.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

enum { N = 6 };

/* buf = x; shift buf[1..N-1] left by one (overlapping); clear the last two;
 * return sum_i (i+1) buf[i]^2 */
static double shift_and_sum(const double *x)
{
  double buf[N];
  memcpy(buf, x, sizeof buf);
  memmove(buf, buf + 1, (N - 1) * sizeof(double));
  memset(buf + N - 2, 0, 2 * sizeof(double));
  double s = 0;
  for (int i = 0; i < N; i++)
    s += (i + 1) * buf[i] * buf[i];
  return s;
}

/* a heap copy shifted right with memmove, then the original overwritten */
static void smooth(double *x)
{
  double *tmp = malloc(N * sizeof *tmp);
  memcpy(tmp, x, N * sizeof *tmp);
  memmove(tmp + 1, tmp, (N - 1) * sizeof *tmp);
  for (int i = 0; i < N; i++)
    x[i] = 0.5 * (x[i] + tmp[i]) * x[i];
  free(tmp);
}

int main(void)
{
  double x[N] = {0.5, -1.0, 2.0, 0.25, -0.75, 1.5}, dx[N] = {0};
  __enzyme_autodiff((void *)shift_and_sum, enzyme_dup, x, dx);
  for (int i = 0; i < N; i++) {
    /* buf[j] = x[j+1] for j < N-2 */
    double want = (i >= 1 && i <= N - 2) ? 2 * i * x[i] : 0;
    char what[48];
    snprintf(what, sizeof what, "shift_and_sum: dx[%d]", i);
    check_close(what, dx[i], want, 1e-14);
  }
  double t[N] = {1, 2, 3, 4, 5, 6}, want = 0;
  for (int i = 1; i <= N - 2; i++)
    want += 2 * i * x[i] * t[i];
  check_close("shift_and_sum: forward", __enzyme_fwddiff((void *)shift_and_sum, enzyme_dup, x, t), want, 1e-14);

  /* smooth: y_i = 0.5 (x_i + x_{i-1}) x_i (x_{-1} = x_0), seeded with dy = 1 */
  double y[N], dy[N];
  for (int i = 0; i < N; i++) {
    y[i] = x[i];
    dy[i] = 1.0;
  }
  __enzyme_autodiff((void *)smooth, enzyme_dup, y, dy);
  for (int i = 0; i < N; i++) {
    double prev = i ? x[i - 1] : x[0];
    double self = i ? x[i] + 0.5 * prev : 2 * x[i];
    double from_next = i + 1 < N ? 0.5 * x[i + 1] : 0;
    char what[48];
    snprintf(what, sizeof what, "smooth: dx[%d]", i);
    check_close(what, dy[i], self + from_next, 1e-14);
    snprintf(what, sizeof what, "smooth: y[%d]", i);
    check_close(what, y[i], 0.5 * (x[i] + prev) * x[i], 1e-14);
  }
  return check_exit();
}
