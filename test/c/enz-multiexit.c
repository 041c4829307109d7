// RUN: %check-c %s %t
// Loops with several exits and early returns: a search that returns from
// inside a nested loop, a while loop with break and continue guarded by
// active comparisons, a loop that returns a different expression on each of
// three exits, and a switch inside a loop with fall-through cases. Reverse
// and forward mode against central differences, at points that exercise
// different exits.
#include <math.h>
#include <stdio.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

double nested_return(double x)
{
  double acc = x;
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++) {
      acc = acc * 0.9 + sin(acc * (i + 1)) * 0.1;
      if (acc > 1.2 && j > 2)
        return acc * x;
    }
  return acc - x;
}

double break_continue(double x)
{
  double s = 0, t = x;
  int k = 0;
  while (k < 20) {
    k++;
    t = t * 1.1 - 0.05;
    if (t < 0.3)
      continue;
    s += t * t;
    if (s > 3.0)
      break;
  }
  return s + t;
}

double three_exits(double x)
{
  double v = x;
  for (int i = 0; i < 10; i++) {
    v = v * v * 0.5 + 0.3;
    if (v > 2.0)
      return exp(v) * 0.01;
    if (v < 0.35)
      return v * x;
  }
  return v;
}

double with_switch(double x)
{
  double r = 0;
  for (int i = 0; i < 7; i++) {
    switch (i % 4) {
    case 0:
      r += x * i;
      /* fall through */
    case 1:
      r += sin(x + i);
      break;
    case 2:
      r *= 0.5;
      break;
    default:
      r -= x * x;
    }
  }
  return r;
}

int main(void)
{
  static const double xs[] = {0.2, 0.6, 1.1, 1.9};
  for (int k = 0; k < 4; k++) {
    double x = xs[k];
    check_both_modes(nested_return, x, 1e-6);
    check_both_modes(break_continue, x, 1e-6);
    check_both_modes(three_exits, x, 1e-6);
    check_both_modes(with_switch, x, 1e-6);
  }
  return check_exit();
}
