// RUN: %check-c %s %t
// The libm functions users call, in double and in float: each expression is
// written once and compiled twice through <tgmath.h> (so the float copy
// calls erff, hypotf, ...), then differentiated in both modes and compared
// with a central difference of the double copy. Floats go through the
// variadic call promoted to double and come back as float. glibc's own
// names (gamma, drem, significand, nextup, ...) are there too.
#define _GNU_SOURCE
#include <tgmath.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
float __enzyme_autodiff_f(void *, ...);
float __enzyme_fwddiff_f(void *, ...);

/* name, expression of x, point */
#define FUNCTIONS(X)                                                                               \
  X(erf_, erf(x) * 2.0f, 0.7)                                                                      \
  X(erfc_, erfc(x * x), 0.6)                                                                       \
  X(tgamma_, tgamma(x + 1.25f), 0.7)                                                               \
  X(lgamma_pos, lgamma(x * 3.0f), 0.9)                                                             \
  X(lgamma_neg, lgamma(x - 2.5f), 0.7)                                                             \
  X(cbrt_, cbrt(x) + cbrt(-x * x), 1.7)                                                            \
  X(hypot_, hypot(x, 1.5f) * hypot(-2.0f, x), 0.8)                                                 \
  X(atan2_y, atan2(x, -0.5f), 0.4)                                                                 \
  X(atan2_x, atan2(1.25f, x), -0.9)                                                                \
  X(fmod_x, fmod(x * 3.0f, 1.25f), 0.7)                                                            \
  X(fmod_y, fmod(2.75f, x), 0.8)                                                                   \
  X(remainder_x, remainder(x * 5.0f, 1.5f), 0.7)                                                   \
  X(remainder_y, remainder(4.25f, x), 1.3)                                                         \
  X(fmin_, fmin(x * x, 0.5f) + fmin(0.25f, x), 0.6)                                                \
  X(fmax_, fmax(x * x, 0.5f) + fmax(0.25f, x * 2.0f), 0.6)                                         \
  X(fdim_, fdim(x * 3.0f, 1.0f) + fdim(0.5f, x), 0.6)                                              \
  X(copysign_, copysign(x * x, -1.0f) + copysign(2.0f, x) * x, 0.6)                                \
  X(expm1_, expm1(x * 0.5f), -0.3)                                                                 \
  X(log1p_, log1p(x * x), 0.4)                                                                     \
  X(log2_, log2(x + 2.0f), 0.3)                                                                    \
  X(log10_, log10(x * 4.0f), 0.3)                                                                  \
  X(exp2_, exp2(x * 1.5f), 0.3)                                                                    \
  X(pow_int, pow(x, 3) + pow(x, -2), 1.3)                                                          \
  X(pow_real, pow(x, 2.5f) + pow(1.5f, x), 1.3)                                                    \
  X(pow_both, pow(x + 1.0f, x), 0.8)                                                               \
  X(sinh_, sinh(x) * cosh(x * 0.5f), 0.7)                                                          \
  X(tanh_, tanh(x * 2.0f), 0.3)                                                                    \
  X(asinh_, asinh(x * 3.0f), -0.4)                                                                 \
  X(acosh_, acosh(x + 1.5f), 0.4)                                                                  \
  X(atanh_, atanh(x * 0.5f), 0.9)                                                                  \
  X(asin_, asin(x) + acos(x * 0.5f), 0.3)                                                          \
  X(atan_, atan(x * x), 0.8)                                                                       \
  X(ldexp_, ldexp(x, 3) + ldexp(x * x, -2), 0.7)                                                   \
  X(scalbn_, scalbn(x, 2) + scalbln(x * x, 3L), 0.7)                                              \
  X(nextafter_, nextafter(x * x, 2.0f) * 3.0f, 0.7)                                                \
  X(rounding, x * 0.5f + nearbyint(x * 7.0f) + round(x * 7.0f) + floor(x * 7.0f) + ceil(x * 7.0f) \
                  + trunc(x * 7.0f) + rint(x * 7.0f), 0.37)                                        \
  X(fabs_pos, fabs(x) * x, 0.6)                                                                    \
  X(fabs_neg, fabs(x) * x, -0.6)                                                                   \
  X(sqrt_, sqrt(x) * sqrt(x + 1.0f), 0.6)                                                          \
  X(exp_log, exp(-x) * log(x), 1.6)                                                                \
  X(trig, sin(x) * cos(x * 2.0f) + tan(x * 0.5f), 0.6)                                             \
  X(fma_, fma(x, x, x * 3.0f), 0.6)

#define DEFINE(name, expr, at)                                                                     \
  static double name##d(double x) { return expr; }                                                 \
  static float name##f(float x) { return expr; }
FUNCTIONS(DEFINE)

/* frexp's mantissa is x / 2^e: derivative 2^-e between powers of two */
static double frexp_d(double x)
{
  int e;
  return frexp(x, &e) * 3.0;
}
static float frexp_f(float x)
{
  int e;
  return frexp(x, &e) * 3.0f;
}

/* modf: the fractional part has derivative 1, the integral part 0 */
static double modf_d(double x)
{
  double ip;
  double frac = modf(x * 4.0, &ip);
  return frac * frac + ip * x;
}
static float modf_f(float x)
{
  float ip;
  float frac = modff(x * 4.0f, &ip);
  return frac * frac + ip * x;
}

/* remquo: the remainder, with the quotient's low bits stored */
static double remquo_d(double x)
{
  int q;
  double r = remquo(x * 5.0, 1.5, &q);
  return r * (q & 1 ? 2 : 3);
}
static float remquo_f(float x)
{
  int q;
  float r = remquo(x * 5.0f, 1.5f, &q);
  return r * (q & 1 ? 2 : 3);
}

/* glibc's gamma (lgamma), drem (remainder), significand, nextup, nextdown,
 * fminimum_num and fmaximum_num */
static double glibc_names_d(double x)
{
  return gamma(x + 1.5) + drem(x * 3.0, 1.25) + significand(x * 5.0) + nextup(x * x) - nextdown(-x) +
         fminimum_num(x, 0.5) + fmaximum_num(x * x, 0.25);
}
static float glibc_names_f(float x)
{
  return gammaf(x + 1.5f) + dremf(x * 3.0f, 1.25f) + significandf(x * 5.0f) + nextupf(x * x) - nextdownf(-x) +
         fminimum_numf(x, 0.5f) + fmaximum_numf(x * x, 0.25f);
}

/* powi by a loop, as users write it */
static double powi_loop_d(double x)
{
  double r = 1;
  for (int i = 0; i < 5; i++)
    r *= x;
  return r + __builtin_powi(x, 3) + __builtin_powi(x, -1);
}
static float powi_loop_f(float x)
{
  float r = 1;
  for (int i = 0; i < 5; i++)
    r *= x;
  return r + __builtin_powif(x, 3) + __builtin_powif(x, -1);
}

/* A macro: a derivative request needs the function itself, not a pointer
 * held in a variable. */
#define check_pair(name, d, f, at)                                                                 \
  do {                                                                                             \
    double want_ = central_difference(d, at);                                                      \
    float xf_ = (float)(at);                                                                       \
    check_close(name ": double, reverse", __enzyme_autodiff((void *)d, (double)(at)), want_, 1e-6); \
    check_close(name ": double, forward", __enzyme_fwddiff((void *)d, (double)(at), 1.0), want_,    \
                1e-6);                                                                             \
    check_close(name ": float, reverse", __enzyme_autodiff_f((void *)f, enzyme_out, xf_), want_,    \
                2e-4);                                                                             \
    check_close(name ": float, forward", __enzyme_fwddiff_f((void *)f, enzyme_dup, xf_, 1.0f),      \
                want_, 2e-4);                                                                      \
  } while (0)

int main(void)
{
#define CHECK(name, expr, at) check_pair(#name, name##d, name##f, at);
  FUNCTIONS(CHECK)
  check_pair("frexp", frexp_d, frexp_f, 0.7);
  check_pair("modf", modf_d, modf_f, 0.7);
  check_pair("powi", powi_loop_d, powi_loop_f, 1.2);
  check_pair("remquo", remquo_d, remquo_f, 0.7);
  check_pair("gamma, drem, significand", glibc_names_d, glibc_names_f, 0.7);
  /* A few against their analytic values. */
  double x = 0.7;
  /* psi(-1.8) = psi(1.2) + pi cot(1.8 pi) - 1 / 1.8 ... by reflection and recurrence:
   * psi(1 - z) - psi(z) = pi cot(pi z) with z = 2.8, psi(2.8) = psi(1.8) + 1/1.8 */
  double psi_1_8 = 0.2849914332938615, pi = 3.14159265358979323846;
  double psi_2_8 = psi_1_8 + 1 / 1.8, psi_m1_8 = psi_2_8 + pi / tan(pi * 2.8);
  check_close("lgamma(x - 2.5) analytic", __enzyme_autodiff((void *)lgamma_negd, x), psi_m1_8, 1e-12);
  check_close("copysign analytic", __enzyme_autodiff((void *)copysign_d, x), -2 * x + 2, 1e-14);
  check_close("rounding analytic", __enzyme_autodiff((void *)roundingd, x), 0.5, 0);
  check_close("rounding analytic, float", __enzyme_autodiff_f((void *)roundingf, enzyme_out, (float)x), 0.5, 0);
  return check_exit();
}
