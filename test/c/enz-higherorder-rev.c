// RUN: %check-c %s %t
// Reverse mode over reverse mode: a derivative function that itself calls
// __enzyme_autodiff is differentiated again in reverse mode, up to the
// fourth derivative, for a Taylor polynomial of cos in a loop (pow and a
// noinline recursive integer factorial), and for a straight-line function.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) uint64_t fact(uint64_t n)
{
  if (n == 0)
    return 1;
  return n * fact(n - 1);
}

double my_cos(double x)
{
  double r = 0;
  for (uint64_t i = 0; i <= 16; i++) {
    if (i % 2 == 1)
      continue;
    r += pow(x, (double)i) / fact(i) * (i % 4 == 0 ? 1 : -1);
  }
  return r;
}

double d1(double x) { return __enzyme_autodiff((void *)my_cos, x); }
double d2(double x) { return __enzyme_autodiff((void *)d1, x); }
double d3(double x) { return __enzyme_autodiff((void *)d2, x); }
double d4(double x) { return __enzyme_autodiff((void *)d3, x); }

double xsin(double x) { return x * sin(x); }
double xsin1(double x) { return __enzyme_autodiff((void *)xsin, x); }
double xsin2(double x) { return __enzyme_autodiff((void *)xsin1, x); }

int main(void)
{
  double x = 0.9;
  check_close("straight line, reverse over reverse", xsin2(x), 2 * cos(x) - x * sin(x), 1e-13);
  check_close("first derivative, reverse", d1(x), -sin(x), 1e-12);
  check_close("second derivative, reverse over reverse", d2(x), -cos(x), 1e-11);
  check_close("third derivative, reverse^3", d3(x), sin(x), 1e-10);
  check_close("fourth derivative, reverse^4", d4(x), cos(x), 1e-9);
  return check_exit();
}
