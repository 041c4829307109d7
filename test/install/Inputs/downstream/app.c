// Forward and reverse derivatives through an installed Kinase::plugin: prints
// them next to the exact values and exits non-zero if any disagrees.
#include <kinase.h>
#include <math.h>
#include <stdio.h>

static double f(double x) { return x * sin(x); }

// sum of b[i] a[i]^2: its gradient in a is 2 a[i] b[i].
static double weighted_squares(const double *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * a[i] * b[i];
  return s;
}

static int check(const char *what, double got, double want) {
  int ok = fabs(got - want) <= 1e-12 * fmax(1.0, fabs(want));
  printf("%s = %.12f (exact %.12f) %s\n", what, got, want, ok ? "ok" : "WRONG");
  return ok;
}

int main(void) {
  double x = 2.0, exact = sin(x) + x * cos(x);
  int ok = check("fwddiff f'(2)", __enzyme_fwddiff((void *)f, enzyme_dup, x, 1.0), exact);
  ok &= check("autodiff f'(2)", __enzyme_autodiff((void *)f, enzyme_out, x), exact);

  double a[3] = {1, 2, 3}, b[3] = {4, 5, 6}, da[3] = {0};
  __enzyme_autodiff((void *)weighted_squares, enzyme_dup, a, da, enzyme_const, b, enzyme_const, 3);
  const char *names[3] = {"d ws/d a[0]", "d ws/d a[1]", "d ws/d a[2]"};
  for (int i = 0; i < 3; i++)
    ok &= check(names[i], da[i], 2 * a[i] * b[i]);
  return ok ? 0 : 1;
}
