// RUN: %check-c %s %t
// complex.h's functions in reverse and forward mode, in double, float and
// long double, each checked against central differences: the real-valued
// F(x, y) = re f(z) + 2 im f(z) of z = x + iy, so that both parts and both
// partials count. Float complex travels as <2 x float> and long double
// complex in memory (byval) on x86-64: the models take their parts either
// way. csqrt is also checked on the positive reals, where its imaginary
// part's derivative must be 1/(2 sqrt x), not NaN.
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_const, enzyme_out;
typedef struct {
  double dx, dy;
} Grad;
Grad __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
typedef struct {
  float dx, dy;
} GradF;
GradF __enzyme_autodiff_f(void *, ...) __asm__("__enzyme_autodiff");
float __enzyme_fwddiff_f(void *, ...) __asm__("__enzyme_fwddiff");
typedef struct {
  long double dx, dy;
} GradL;
GradL __enzyme_autodiff_l(void *, ...) __asm__("__enzyme_autodiff");
long double __enzyme_fwddiff_l(void *, ...) __asm__("__enzyme_fwddiff");

#define COMPLEX_CASE(fn)                                                                           \
  static double d_##fn(double x, double y) {                                                       \
    double complex w = fn(x + I * y);                                                              \
    return creal(w) + 2 * cimag(w);                                                                \
  }                                                                                                \
  static float f_##fn(float x, float y) {                                                          \
    float complex w = fn##f(x + I * y);                                                            \
    return crealf(w) + 2 * cimagf(w);                                                              \
  }                                                                                                \
  static long double l_##fn(long double x, long double y) {                                        \
    long double complex w = fn##l(x + I * y);                                                      \
    return creall(w) + 2 * cimagl(w);                                                              \
  }
#define REAL_CASE(fn)                                                                              \
  static double d_##fn(double x, double y) { return fn(x + I * y); }                               \
  static float f_##fn(float x, float y) { return fn##f(x + I * y); }                               \
  static long double l_##fn(long double x, long double y) { return fn##l(x + I * y); }

COMPLEX_CASE(cexp)
COMPLEX_CASE(clog)
COMPLEX_CASE(csqrt)
COMPLEX_CASE(csin)
COMPLEX_CASE(ccos)
COMPLEX_CASE(ctan)
COMPLEX_CASE(csinh)
COMPLEX_CASE(ccosh)
COMPLEX_CASE(ctanh)
COMPLEX_CASE(casin)
COMPLEX_CASE(cacos)
COMPLEX_CASE(catan)
COMPLEX_CASE(casinh)
COMPLEX_CASE(cacosh)
COMPLEX_CASE(catanh)
COMPLEX_CASE(cproj)
REAL_CASE(cabs)
REAL_CASE(carg)

/* z^w with both varying, and a real power; products and quotients go
 * through __mul?c3 / __div?c3. */
static double d_cpow(double x, double y) {
  double complex z = x + I * y, w = cpow(z, 0.5 * z) + cpow(z, 2.5) * z / (1 + z);
  return creal(w) + 2 * cimag(w);
}
static float f_cpow(float x, float y) {
  float complex z = x + I * y, w = cpowf(z, 0.5f * z) + cpowf(z, 2.5f) * z / (1 + z);
  return crealf(w) + 2 * cimagf(w);
}
static long double l_cpow(long double x, long double y) {
  long double complex z = x + I * y, w = cpowl(z, 0.5L * z) + cpowl(z, 2.5L) * z / (1 + z);
  return creall(w) + 2 * cimagl(w);
}

static double central(double (*f)(double, double), double x, double y, int wrt_y) {
  double h = 1e-6;
  return wrt_y ? (f(x, y + h) - f(x, y - h)) / (2 * h) : (f(x + h, y) - f(x - h, y)) / (2 * h);
}

#define CHECK(name, x, y)                                                                          \
  do {                                                                                             \
    double want_x = central(d_##name, x, y, 0), want_y = central(d_##name, x, y, 1);               \
    Grad g = __enzyme_autodiff((void *)d_##name, x, y);                                            \
    check_close(#name " reverse d/dx", g.dx, want_x, 1e-6);                                        \
    check_close(#name " reverse d/dy", g.dy, want_y, 1e-6);                                        \
    check_close(#name " forward d/dy", __enzyme_fwddiff((void *)d_##name, x, 0.0, y, 1.0), want_y, \
                1e-6);                                                                             \
    GradF gf = __enzyme_autodiff_f((void *)f_##name, (float)(x), (float)(y));                      \
    check_close(#name "f reverse d/dx", gf.dx, want_x, 1e-4);                                      \
    check_close(#name "f forward d/dy",                                                            \
                __enzyme_fwddiff_f((void *)f_##name, (float)(x), 0.0f, (float)(y), 1.0f), want_y,  \
                1e-4);                                                                             \
    GradL gl = __enzyme_autodiff_l((void *)l_##name, (long double)(x), (long double)(y));          \
    check_close(#name "l reverse d/dy", (double)gl.dy, want_y, 1e-6);                              \
    check_close(#name "l forward d/dx",                                                            \
                (double)__enzyme_fwddiff_l((void *)l_##name, (long double)(x), 1.0L,               \
                                           (long double)(y), 0.0L),                                \
                want_x, 1e-6);                                                                     \
  } while (0)

/* Away from the branch cuts: off the real axis, and inside the unit
 * circle for the inverse functions. */
#define CHECK_AT_POINTS(name)                                                                      \
  do {                                                                                             \
    CHECK(name, 0.3, 0.4);                                                                         \
    CHECK(name, -0.6, 0.25);                                                                       \
    CHECK(name, 0.2, -0.7);                                                                        \
  } while (0)

int main(void) {
  CHECK_AT_POINTS(cexp);
  CHECK_AT_POINTS(clog);
  CHECK_AT_POINTS(csqrt);
  CHECK_AT_POINTS(csin);
  CHECK_AT_POINTS(ccos);
  CHECK_AT_POINTS(ctan);
  CHECK_AT_POINTS(csinh);
  CHECK_AT_POINTS(ccosh);
  CHECK_AT_POINTS(ctanh);
  CHECK_AT_POINTS(casin);
  CHECK_AT_POINTS(cacos);
  CHECK_AT_POINTS(catan);
  CHECK_AT_POINTS(casinh);
  CHECK_AT_POINTS(cacosh);
  CHECK_AT_POINTS(catanh);
  CHECK_AT_POINTS(cproj);
  CHECK_AT_POINTS(cabs);
  CHECK_AT_POINTS(carg);
  CHECK_AT_POINTS(cpow);
  /* The root of a positive real: d/dy of im sqrt(x + iy) at y = 0 is 1/(2 sqrt x). */
  Grad g = __enzyme_autodiff((void *)d_csqrt, 4.0, 0.0);
  check_close("csqrt on the positive reals, d/dx", g.dx, 0.25, 1e-12);
  check_close("csqrt on the positive reals, d/dy", g.dy, 2 * 0.25, 1e-12);
  return check_exit();
}
