// RUN: %check-c %s %t -fno-builtin
// With -fno-builtin clang calls the library functions it would otherwise
// expand or turn into intrinsics: creal, cimag and conj (complex.h models),
// modf (llvm.modf's model, its whole part stored), fabs, memcpy. Both modes,
// each type where the name has spellings.
#include <complex.h>
#include <math.h>
#include <string.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
float __enzyme_autodiff_f(void *, ...) __asm__("__enzyme_autodiff");
long double __enzyme_autodiff_l(void *, ...) __asm__("__enzyme_autodiff");

/* re(z conj(z)) + 2 im(z^2) + im(conj(z)), z = x + 2ix: 5x^2 + 8x^2 - 2x */
double parts(double x) {
  double complex z = x + 2 * x * I;
  return creal(z * conj(z)) + 2 * cimag(z * z) + cimag(conj(z));
}
float parts_f(float x) {
  float complex z = x + 2 * x * I;
  return crealf(z * conjf(z)) + 2 * cimagf(z * z) + cimagf(conjf(z));
}
long double parts_l(long double x) {
  long double complex z = x + 2 * x * I;
  return creall(z * conjl(z)) + 2 * cimagl(z * z) + cimagl(conjl(z));
}

/* frac(3x)^2 + whole(3x) x, and |x| through memcpy */
double pieces(double x) {
  double whole, copy;
  double frac = modf(3 * x, &whole);
  memcpy(&copy, &x, sizeof x);
  return frac * frac + whole * x + fabs(-copy);
}
float pieces_f(float x) {
  float whole;
  float frac = modff(3 * x, &whole);
  return frac * frac + whole * x;
}
long double pieces_l(long double x) {
  long double whole;
  long double frac = modfl(3 * x, &whole);
  return frac * frac + whole * x;
}

int main(void) {
  double x = 0.77;
  check_close("complex parts", __enzyme_autodiff((void *)parts, x), 26 * x - 2, 1e-14);
  check_close("complex parts, forward", __enzyme_fwddiff((void *)parts, x, 1.0), 26 * x - 2, 1e-14);
  check_close("complex parts, float", __enzyme_autodiff_f((void *)parts_f, 0.77f), 26 * 0.77f - 2, 1e-5);
  check_close("complex parts, long double", (double)__enzyme_autodiff_l((void *)parts_l, 0.77L), 26 * x - 2,
              1e-14);
  /* 3x = 2.31: frac 0.31, whole 2 */
  double want = 2 * (3 * x - 2) * 3 + 2 + 1;
  check_close("modf", __enzyme_autodiff((void *)pieces, x), want, 1e-12);
  check_close("modf, forward", __enzyme_fwddiff((void *)pieces, x, 1.0), want, 1e-12);
  check_close("modff", __enzyme_autodiff_f((void *)pieces_f, 0.77f), want - 1, 1e-4);
  check_close("modfl", (double)__enzyme_autodiff_l((void *)pieces_l, 0.77L), want - 1, 1e-12);
  return check_exit();
}
