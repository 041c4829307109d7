// RUN: %check-c %s %t
// Assorted C features inside differentiated functions: long double
// arithmetic, clang vector extensions (four doubles in one value, element
// access and whole-vector arithmetic), __builtin_assume and
// __builtin_unreachable, a static local call counter, a local array
// initialised from a constant table, and a _Bool flag computed from active
// values. Reverse and forward mode.
#include <math.h>
#include <stdio.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef double d4 __attribute__((vector_size(32)));

double ld(double x)
{
  long double y = (long double)x;
  long double z = y * y * y + 1.0L / y;
  return (double)z;
}

double vec(double x)
{
  d4 a = {x, 2 * x, x * x, 1.0};
  d4 b = {1.0, x, 0.5, x};
  d4 c = a * b + a;
  return c[0] + c[1] + c[2] + c[3];
}

double assume(double x, int n)
{
  __builtin_assume(n > 0);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x * i;
  if (n > 1000)
    __builtin_unreachable();
  return s;
}

double counted(double x)
{
  static int calls;
  calls++;
  const double w[5] = {1.0, -2.0, 0.5, 3.0, -1.0};
  double s = 0;
  for (int i = 0; i < 5; i++)
    s += w[i] * pow(x, i);
  _Bool big = s > 10.0;
  return big ? s : s * (calls > 0 ? 2.0 : 1.0);
}

int main(void)
{
  double x = 1.3;
  check_close("long double, reverse", __enzyme_autodiff((void *)ld, x), 3 * x * x - 1 / (x * x), 1e-14);
  check_close("long double, forward", __enzyme_fwddiff((void *)ld, x, 1.0), 3 * x * x - 1 / (x * x), 1e-14);
  /* c = (x + x, 2x*x + 2x, 0.5 x^2 + x^2, x + 1): sum' = 2 + 4x + 2 + 3x + 1 */
  double want = 2 + 4 * x + 2 + 3 * x + 1;
  check_close("vector extension, reverse", __enzyme_autodiff((void *)vec, x), want, 1e-14);
  check_close("vector extension, forward", __enzyme_fwddiff((void *)vec, x, 1.0), want, 1e-14);
  check_close("__builtin_assume, reverse", __enzyme_autodiff((void *)assume, x, 6), 15.0, 1e-14);
  check_close("__builtin_assume, forward", __enzyme_fwddiff((void *)assume, x, 1.0, 6), 15.0, 1e-14);
  double d = -2.0 + 2 * 0.5 * x + 3 * 3.0 * x * x - 4 * x * x * x;
  check_close("static counter and constant table, reverse", __enzyme_autodiff((void *)counted, x), 2 * d, 1e-13);
  check_close("static counter and constant table, forward", __enzyme_fwddiff((void *)counted, x, 1.0), 2 * d, 1e-13);
  return check_exit();
}
