// RUN: %check-c %s %t
// Not supported yet: indirect calls with differentiated arguments.
// Indirect calls through function pointers whose arguments are
// differentiated: a generic integrator that takes the integrand as a
// callback (passed as an enzyme_const argument), a table of function
// pointers chosen by an integer, and a callback stored in a structure.
// Enzyme differentiates such calls through shadows of the functions whose
// address is taken. Reverse and forward mode.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_const, enzyme_out, enzyme_dup;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef double (*fn1)(double, double);

double gauss(double t, double k) { return exp(-k * t * t); }
double wave(double t, double k) { return sin(k * t); }

__attribute__((noinline)) double integrate(fn1 f, double k, int n)
{
  double h = 1.0 / n, s = 0;
  for (int i = 0; i < n; i++)
    s += f((i + 0.5) * h, k) * h;
  return s;
}

double by_callback(fn1 f, double k) { return integrate(f, k, 50); }

static fn1 table[2] = {gauss, wave};
double by_table(int which, double k) { return table[which](0.7, k); }

struct model {
  fn1 eval;
  double scale;
};
double by_struct(const struct model *m, double k) { return m->scale * m->eval(1.3, k); }

static double gauss_int(double k)
{
  double h = 1.0 / 50, s = 0;
  for (int i = 0; i < 50; i++)
    s += gauss((i + 0.5) * h, k) * h;
  return s;
}

int main(void)
{
  double k = 0.8;
  double fd = central_difference(gauss_int, k);
  check_close("callback argument, reverse", __enzyme_autodiff((void *)by_callback, enzyme_const, gauss, k), fd, 1e-7);
  check_close("callback argument, forward", __enzyme_fwddiff((void *)by_callback, enzyme_const, gauss, k, 1.0), fd,
              1e-7);
  check_close("function table, reverse", __enzyme_autodiff((void *)by_table, enzyme_const, 1, k), 0.7 * cos(k * 0.7),
              1e-14);
  check_close("function table, forward", __enzyme_fwddiff((void *)by_table, enzyme_const, 1, k, 1.0),
              0.7 * cos(k * 0.7), 1e-14);
  struct model m = {wave, 2.0};
  check_close("callback in a struct, reverse", __enzyme_autodiff((void *)by_struct, enzyme_const, &m, k),
              2.0 * 1.3 * cos(k * 1.3), 1e-14);
  check_close("callback in a struct, forward", __enzyme_fwddiff((void *)by_struct, enzyme_const, &m, k, 1.0),
              2.0 * 1.3 * cos(k * 1.3), 1e-14);
  return check_exit();
}
