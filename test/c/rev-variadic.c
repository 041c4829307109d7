// RUN: %check-c %s %t
// Variadic functions of the program called from differentiated code, both
// modes: on x86-64 each call becomes a call of a fixed-arity copy that
// reads its variable arguments from memory laid out as va_arg's overflow
// area, whose shadow carries their derivatives.
// - a sum over `...` of doubles;
// - a logging helper handed a double, which passes its va_list on to
//   vfprintf (and prints only when asked);
// - arguments of several kinds in one call: int tags, a pair of doubles
//   (passed as two eightbytes), a long double (16-byte aligned in the
//   area), a struct of four doubles (byval), and a va_copy read again;
// - a va_list handed on to a helper of the program;
// - a call in a loop, its memory of arguments filled again each time.
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
typedef struct {
  double dx, dy;
} Grad;
Grad __enzyme_autodiff_xy(void *, ...) __asm__("__enzyme_autodiff");

static int verbose;

static void say(const char *format, ...) {
  if (!verbose)
    return;
  va_list ap;
  va_start(ap, format);
  vfprintf(stderr, format, ap);
  va_end(ap);
}

static double weighted_sum(int n, ...) {
  va_list ap;
  va_start(ap, n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += va_arg(ap, double) * (i + 1);
  va_end(ap);
  return s;
}

double sum_of_three(double x, double y) {
  say("x = %g, y = %g, step %d\n", x, y, 3);
  return weighted_sum(3, x * x, sin(y), x * y);
}

typedef struct {
  double a, b;
} Pair;
typedef struct {
  double v[4];
} Quad;

static double tagged(int n, ...) {
  va_list ap, again;
  va_start(ap, n);
  va_copy(again, ap);
  double s = 0;
  for (int i = 0; i < n; i++) {
    switch (va_arg(ap, int)) {
    case 0:
      s += va_arg(ap, double);
      break;
    case 1: {
      Pair p = va_arg(ap, Pair);
      s += p.a * p.b;
      break;
    }
    case 2: {
      long double l = va_arg(ap, long double);
      s += (double)(l * l);
      break;
    }
    default: {
      Quad q = va_arg(ap, Quad);
      s += q.v[0] * q.v[3] + q.v[1];
    }
    }
  }
  (void)va_arg(again, int);
  double first = va_arg(again, double);
  va_end(again);
  va_end(ap);
  return s + 10 * first;
}

/* x y + x y + x^2 + (2 x + y) + 10 x y */
double mixed(double x, double y) {
  Pair p = {x, y};
  Quad q = {{x, y, x * y, 2.0}};
  return tagged(4, 0, x * y, 1, p, 2, (long double)x, 3, q);
}

static double product_of(int n, va_list ap) {
  double p = 1;
  for (int i = 0; i < n; i++)
    p *= va_arg(ap, double);
  return p;
}

static double product(int n, ...) {
  va_list ap;
  va_start(ap, n);
  double p = product_of(n, ap);
  va_end(ap);
  return p;
}

double cubed(double x) { return product(3, x, x, x); }

double in_a_loop(const double *x, int n) {
  double s = 0;
  for (int i = 0; i + 2 < n; i++)
    s += weighted_sum(3, x[i], x[i + 1] * x[i], sin(x[i + 2])) * x[i];
  return s;
}

int main(void) {
  double x = 0.7, y = 1.3;
  Grad g = __enzyme_autodiff_xy((void *)sum_of_three, x, y);
  check_close("sum over ...: d/dx", g.dx, 2 * x + 3 * y, 1e-15);
  check_close("sum over ...: d/dy", g.dy, 2 * cos(y) + 3 * x, 1e-15);
  check_close("sum over ..., forward", __enzyme_fwddiff((void *)sum_of_three, x, 0.0, y, 1.0),
              2 * cos(y) + 3 * x, 1e-15);
  Grad m = __enzyme_autodiff_xy((void *)mixed, x, y);
  check_close("several kinds: d/dx", m.dx, 12 * y + 2 * x + 2, 1e-14);
  check_close("several kinds: d/dy", m.dy, 12 * x + 1, 1e-14);
  check_close("several kinds, forward", __enzyme_fwddiff((void *)mixed, x, 1.0, y, 0.0),
              12 * y + 2 * x + 2, 1e-14);
  check_close("va_list handed on", __enzyme_autodiff((void *)cubed, x), 3 * x * x, 1e-15);
  check_close("va_list handed on, forward", __enzyme_fwddiff((void *)cubed, x, 1.0), 3 * x * x, 1e-15);
  double v[5] = {0.3, 0.5, -0.2, 0.9, 1.1}, dv[5] = {0}, h = 1e-6;
  __enzyme_autodiff((void *)in_a_loop, enzyme_dup, v, dv, enzyme_const, 5);
  for (int i = 0; i < 5; i++) {
    double kept = v[i];
    v[i] = kept + h;
    double up = in_a_loop(v, 5);
    v[i] = kept - h;
    double down = in_a_loop(v, 5);
    v[i] = kept;
    check_close("in a loop", dv[i], (up - down) / (2 * h), 1e-7);
  }
  double tv[5] = {0, 0, 1, 0, 0};
  check_close("in a loop, forward", __enzyme_fwddiff((void *)in_a_loop, enzyme_dup, v, tv, enzyme_const, 5), dv[2],
              1e-14);
  return check_exit();
}
