// RUN: %check-c %s %t
// Reverse mode on float arrays: the shadows are float arrays too. A float
// dot product, a float map seeded through the output shadow, and a float
// sum scaled by an active float scalar (returned as float).
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
void __enzyme_autodiff_v(void *, ...);
float __enzyme_autodiff_f(void *, ...);

enum { N = 6 };

static float fdot(const float *a, const float *b, int n)
{
  float s = 0.0f;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

/* y[i] = x[i]^2 + sinf(x[i]) */
static void fmap(const float *x, float *y, int n)
{
  for (int i = 0; i < n; i++)
    y[i] = x[i] * x[i] + sinf(x[i]);
}

static float fscaled(const float *x, float k, int n)
{
  float s = 0.0f;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return k * s;
}

int main(void)
{
  float a[N], b[N], da[N], db[N], y[N], dy[N];
  for (int i = 0; i < N; i++) {
    a[i] = 0.4f * i - 1.0f;
    b[i] = 1.5f - 0.3f * i;
    da[i] = db[i] = 0.0f;
  }
  __enzyme_autodiff_v((void *)fdot, enzyme_dup, a, da, enzyme_dup, b, db, N);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "fdot: da[%d]", i);
    check_close(what, da[i], b[i], 1e-6);
    snprintf(what, sizeof what, "fdot: db[%d]", i);
    check_close(what, db[i], a[i], 1e-6);
  }

  for (int i = 0; i < N; i++) {
    da[i] = 0.0f;
    dy[i] = 1.0f + i;
  }
  __enzyme_autodiff_v((void *)fmap, enzyme_dup, a, da, enzyme_dup, y, dy, N);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "fmap: da[%d]", i);
    check_close(what, da[i], (1.0 + i) * (2.0 * a[i] + cos((double)a[i])), 1e-3);
    snprintf(what, sizeof what, "fmap: dy[%d] consumed", i);
    check_close(what, dy[i], 0.0, 0.0);
  }

  float k = 0.75f, s = 0.0f;
  for (int i = 0; i < N; i++) {
    s += a[i] * a[i];
    da[i] = 0.0f;
  }
  float dk = __enzyme_autodiff_f((void *)fscaled, enzyme_dup, a, da, enzyme_out, k, N);
  check_close("fscaled: dk", dk, s, 1e-3);
  for (int i = 0; i < N; i++) {
    char what[64];
    snprintf(what, sizeof what, "fscaled: da[%d]", i);
    check_close(what, da[i], 2.0 * k * a[i], 1e-3);
  }
  return check_exit();
}
