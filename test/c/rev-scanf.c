// RUN: %check-c %s %t
// sscanf inside differentiated code, both modes. A number read has no
// derivative, and it replaces the derivative its destination held; where
// the call assigns nothing (its result says so) the destination keeps its
// value and derivative. Conversions of every float size (%f, %lf, %Lf),
// integers, strings, a suppressed one (%*s) and %n, which does not count in
// the result.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

/* scale x + x^2 + f x + l x, or x when nothing was read */
double parsed(double x, const char *text) {
  double scale = 0;
  int count = 0;
  float f = 0;
  long double l = 0;
  char word[16];
  int got = sscanf(text, "%lf %d %f %Lf %15s", &scale, &count, &f, &l, word);
  return got >= 1 ? scale * x + x * x + 0.0 * count + f * x + (double)l * x : x;
}

/* v x, where v is x^2 unless the text has a number after its first word */
double overwritten(double x, const char *text) {
  double v = x * x;
  int skipped;
  sscanf(text, "%*s %n%lf", &skipped, &v);
  return v * x;
}

int main(void) {
  double x = 1.5;
  const char *full = "2.5 3 0.5 0.25 abc";
  double want = 2.5 + 2 * x + 0.5 + 0.25;
  check_close("every kind read", __enzyme_autodiff((void *)parsed, x, enzyme_const, full), want, 1e-15);
  check_close("every kind read, forward", __enzyme_fwddiff((void *)parsed, x, 1.0, enzyme_const, full), want,
              1e-15);
  check_close("nothing read", __enzyme_autodiff((void *)parsed, x, enzyme_const, "abc"), 1, 0);
  check_close("number replaces x^2", __enzyme_autodiff((void *)overwritten, x, enzyme_const, "skip 4.0"), 4.0,
              1e-15);
  check_close("number replaces x^2, forward",
              __enzyme_fwddiff((void *)overwritten, x, 1.0, enzyme_const, "skip 4.0"), 4.0, 1e-15);
  check_close("no number: x^3", __enzyme_autodiff((void *)overwritten, x, enzyme_const, "skip abc"), 3 * x * x,
              1e-15);
  check_close("no number: x^3, forward", __enzyme_fwddiff((void *)overwritten, x, 1.0, enzyme_const, "skip"),
              3 * x * x, 1e-15);
  return check_exit();
}
