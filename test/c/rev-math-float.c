// RUN: %check-c %s %t
// Reverse mode through the float math functions sinf cosf expf logf sqrtf
// powf tanhf fabsf in a float function of float parameters.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
float __enzyme_autodiff_f(void *, ...);

static float f_sin(float x) { return sinf(x); }
static float f_cos(float x) { return cosf(x); }
static float f_exp(float x) { return expf(x); }
static float f_log(float x) { return logf(x); }
static float f_sqrt(float x) { return sqrtf(x); }
static float f_pow(float x) { return powf(x, 2.5f); }
static float f_tanh(float x) { return tanhf(x); }
static float f_fabs(float x) { return fabsf(x) * x; }

int main(void)
{
  volatile float vx = 1.2f;
  float x = vx;
  double xd = x;

  check_close("sinf", __enzyme_autodiff_f((void *)f_sin, x), cos(xd), 1e-3);
  check_close("cosf", __enzyme_autodiff_f((void *)f_cos, x), -sin(xd), 1e-3);
  check_close("expf", __enzyme_autodiff_f((void *)f_exp, x), exp(xd), 1e-3);
  check_close("logf", __enzyme_autodiff_f((void *)f_log, x), 1 / xd, 1e-3);
  check_close("sqrtf", __enzyme_autodiff_f((void *)f_sqrt, x), 0.5 / sqrt(xd), 1e-3);
  check_close("powf", __enzyme_autodiff_f((void *)f_pow, x), 2.5 * pow(xd, 1.5), 1e-3);
  check_close("tanhf", __enzyme_autodiff_f((void *)f_tanh, x), 1 - tanh(xd) * tanh(xd), 1e-3);
  check_close("fabsf, negative", __enzyme_autodiff_f((void *)f_fabs, -x), 2 * xd, 1e-3);
  return check_exit();
}
