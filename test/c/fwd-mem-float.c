// RUN: %check-c %s %t
// Forward mode with float (not double) memory: dup float arrays in and out,
// and a struct of floats.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
float __enzyme_fwddiff_float(void *, ...);
void __enzyme_fwddiffv(void *, ...);

/* y[i] = x[i] * w + sqrtf(x[i]) */
static void saxpy_sqrt(const float *x, float *y, float w, int n)
{
  for (int i = 0; i < n; i++)
    y[i] = x[i] * w + sqrtf(x[i]);
}

struct fpoint { float x, y; };

static float dist2(const struct fpoint *p, const struct fpoint *q)
{
  float dx = p->x - q->x, dy = p->y - q->y;
  return dx * dx + dy * dy;
}

int main(void)
{
  enum { N = 4 };
  float x[N] = {0.25f, 1.0f, 2.0f, 4.0f}, dx[N] = {1.0f, 0.5f, -1.0f, 2.0f};
  float y[N] = {0}, dy[N] = {0};
  __enzyme_fwddiffv((void *)saxpy_sqrt, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_dup, 3.0f, 0.5f, N);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "saxpy_sqrt: y[%d]", i);
    check_close(what, y[i], x[i] * 3.0 + sqrt((double)x[i]), 1e-6);
    snprintf(what, sizeof what, "saxpy_sqrt: dy[%d]", i);
    check_close(what, dy[i], dx[i] * 3.0 + x[i] * 0.5 + dx[i] * 0.5 / sqrt((double)x[i]), 1e-5);
  }

  struct fpoint p = {1.0f, 2.0f}, dp = {1.0f, 0.0f};
  struct fpoint q = {-0.5f, 4.0f}, dq = {0.0f, 1.0f};
  /* 2 (px-qx)(dpx-dqx) + 2 (py-qy)(dpy-dqy) = 2*1.5*1 + 2*(-2)*(-1) = 7 */
  check_close("d dist2", __enzyme_fwddiff_float((void *)dist2, enzyme_dup, &p, &dp, enzyme_dup, &q, &dq), 7.0,
              1e-6);
  return check_exit();
}
