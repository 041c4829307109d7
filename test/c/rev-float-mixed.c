// RUN: %check-c %s %t
// float everywhere: float arrays behind dup pointers, enzyme_out floats
// (promoted to double through the variadic call, their gradients returned
// as floats in a struct), a float result; and code mixing float and
// double: a float array accumulated in double, a double argument scaling
// floats, conversions both ways.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
float __enzyme_autodiff_f(void *, ...);
double __enzyme_autodiff_d(void *, ...);
float __enzyme_fwddiff_f(void *, ...);
double __enzyme_fwddiff_d(void *, ...);
typedef struct { float a, b; } FGrad2;
FGrad2 __enzyme_autodiff_2f(void *, ...);
typedef struct { float a, b, c; } FGrad3;
FGrad3 __enzyme_autodiff_3f(void *, ...);
typedef struct { double scale; float bias; } MGrad; /* in parameter order */
MGrad __enzyme_autodiff_m(void *, ...);

enum { N = 5 };

/* sum (w_i x_i + b)^2 * s, all float */
static float fit(const float *w, const float *x, float b, float s)
{
  float acc = 0.0f;
  for (int i = 0; i < N; i++) {
    float r = w[i] * x[i] + b;
    acc += r * r;
  }
  return acc * s;
}

/* three active floats: their gradients come back as a struct of three
 * floats, which the C ABI returns as { <2 x float>, float } */
static float three(float a, float b, float c) { return sinf(a) * b + expf(c * a) - b * c * c; }

/* floats read, accumulated in double, scaled by a double */
static double mixed(const float *v, double scale, float bias)
{
  double acc = 0;
  for (int i = 0; i < N; i++)
    acc += (double)v[i] * v[i] + sqrt((double)v[i] + bias);
  return acc * scale + (float)(scale * bias);
}

/* a double computed, stored into float memory, read back */
static float narrow(double x, float *out)
{
  out[0] = (float)(x * x);
  out[1] = (float)sin(x) * out[0];
  return out[1] + (float)x;
}

int main(void)
{
  float w[N] = {0.5f, -1.0f, 0.25f, 2.0f, -0.5f}, dw[N] = {0};
  const float x[N] = {1.0f, 0.5f, -2.0f, 0.25f, 1.5f};
  float b = 0.125f, s = 1.5f;
  FGrad2 gbs = __enzyme_autodiff_2f((void *)fit, enzyme_dup, w, dw, enzyme_const, x, enzyme_out, b, enzyme_out, s);
  float want_b = 0, want_s = 0;
  for (int i = 0; i < N; i++) {
    float r = w[i] * x[i] + b;
    char what[32];
    snprintf(what, sizeof what, "fit: dw[%d]", i);
    check_close(what, dw[i], 2 * r * x[i] * s, 1e-6);
    want_b += 2 * r * s;
    want_s += r * r;
  }
  check_close("fit: db (float out)", gbs.a, want_b, 1e-6);
  check_close("fit: ds (float out)", gbs.b, want_s, 1e-6);
  float tw[N] = {1, 0, 0, 0, 0};
  check_close("fit: forward", __enzyme_fwddiff_f((void *)fit, enzyme_dup, w, tw, enzyme_const, x, enzyme_const, b,
                                                 enzyme_const, s),
              dw[0], 1e-6);

  float a = 0.3f, bb = -1.2f, c = 0.8f;
  FGrad3 g = __enzyme_autodiff_3f((void *)three, enzyme_out, a, enzyme_out, bb, enzyme_out, c);
  check_close("three: da", g.a, cosf(a) * bb + c * expf(c * a), 1e-6);
  check_close("three: db", g.b, sinf(a) - c * c, 1e-6);
  check_close("three: dc", g.c, a * expf(c * a) - 2 * bb * c, 1e-6);
  check_close("three: forward dc", __enzyme_fwddiff_f((void *)three, a, 0.0f, bb, 0.0f, c, 1.0f),
              a * expf(c * a) - 2 * bb * c, 1e-6);

  float v[N] = {0.5f, 1.0f, 1.5f, 2.0f, 2.5f}, dv[N] = {0};
  double scale = 0.75;
  float bias = 0.25f;
  MGrad m = __enzyme_autodiff_m((void *)mixed, enzyme_dup, v, dv, enzyme_out, scale, enzyme_out, bias);
  double want_scale = 0, want_bias = 0;
  for (int i = 0; i < N; i++) {
    double sq = sqrt((double)v[i] + bias);
    want_scale += (double)v[i] * v[i] + sq;
    want_bias += scale * 0.5 / sq;
    char what[32];
    snprintf(what, sizeof what, "mixed: dv[%d]", i);
    check_close(what, dv[i], scale * (2.0 * v[i] + 0.5 / sq), 1e-6);
  }
  check_close("mixed: dbias (float)", m.bias, want_bias + scale, 1e-6);
  check_close("mixed: dscale (double)", m.scale, want_scale + bias, 1e-12);
  check_close("mixed: forward in scale", __enzyme_fwddiff_d((void *)mixed, enzyme_const, v, scale, 1.0, enzyme_const, bias),
              want_scale + bias, 1e-12);

  float out[2], dout[2] = {0.5f, 0.25f};
  double xd = 0.6;
  double dx = __enzyme_autodiff_d((void *)narrow, enzyme_out, xd, enzyme_dup, out, dout);
  /* result = sin(x) x^2 + x; out[1] seeded 0.25, out[0] seeded 0.5 */
  double want_dx = 1.25 * (cos(xd) * xd * xd + 2 * xd * sin(xd)) + 1 + 0.5 * 2 * xd;
  check_close("narrow: dx", dx, want_dx, 1e-6);
  check_true("narrow: dout consumed", dout[0] == 0.0f && dout[1] == 0.0f);
  return check_exit();
}
