// RUN: %check-c %s %t
// Single loops in both modes, Enzyme-style: a trip count passed as an
// argument, a do-while, a count-down loop with an unsigned counter, a loop
// whose induction variable is a double, and a loop that accumulates through
// memory. Fixed prototypes for the entry points, as Enzyme's tests declare
// them, and the functions passed without a cast.
#include <math.h>
#include <stdio.h>
#include "check.h"

double __enzyme_autodiff(void *, double, int);
double __enzyme_fwddiff(void *, double, double, int);

double series(double x, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += sin(x * i) / (i + 1);
  return s;
}

double dowhile(double x, int n)
{
  double p = 1.0;
  int i = 0;
  do {
    p = p * x + (double)i;
    i++;
  } while (i < n);
  return p;
}

double countdown(double x, int n)
{
  double s = 0.0;
  for (unsigned u = (unsigned)n; u > 0; u--)
    s = s * 0.5 + exp(-x * (double)u);
  return s;
}

double dstep(double x, int n)
{
  double s = 0.0;
  for (double t = 0.0; t < (double)n; t += 0.5)
    s += x * x * t;
  return s;
}

double through_memory(double x, int n)
{
  double acc[2];
  acc[0] = 0.0;
  for (int i = 1; i <= n; i++)
    acc[0] += pow(x, (double)i) / i;
  return acc[0];
}

static double xg;
static int ng;
static double series_x(double x) { return series(x, ng); }
static double dowhile_x(double x) { return dowhile(x, ng); }
static double countdown_x(double x) { return countdown(x, ng); }
static double dstep_x(double x) { return dstep(x, ng); }
static double through_memory_x(double x) { return through_memory(x, ng); }

int main(void)
{
  static const int ns[] = {1, 2, 7, 30};
  char what[96];
  for (unsigned k = 0; k < sizeof ns / sizeof *ns; k++) {
    ng = ns[k];
    xg = 0.37;
#define CASE(name, f)                                                      \
  do {                                                                     \
    double fd = central_difference(f##_x, xg);                             \
    snprintf(what, sizeof what, "%s n=%d reverse", name, ng);              \
    check_close(what, __enzyme_autodiff(f, xg, ng), fd, 1e-6);             \
    snprintf(what, sizeof what, "%s n=%d forward", name, ng);              \
    check_close(what, __enzyme_fwddiff(f, xg, 1.0, ng), fd, 1e-6);         \
  } while (0)
    CASE("series", series);
    CASE("do-while", dowhile);
    CASE("countdown", countdown);
    CASE("double step", dstep);
    CASE("through memory", through_memory);
  }
  /* exact values for one case */
  double x = 1.5;
  check_close("series n=3 exact", __enzyme_autodiff(series, x, 3), cos(x) / 2 + 2 * cos(2 * x) / 3, 1e-14);
  check_close("double step n=2 exact", __enzyme_autodiff(dstep, x, 2), 2 * x * (0.5 + 1.0 + 1.5), 1e-14);
  return check_exit();
}
