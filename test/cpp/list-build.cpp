// A std::list built, changed and read inside the differentiated function:
// push_back, push_front and insert link a node in with libstdc++'s
// _List_node_base::_M_hook, pop_back and erase take one out with _M_unhook,
// functions the program does not define. Their models (rules/cxxlib.c)
// store the same addresses, so the shadow nodes are linked into the shadow
// list as the nodes into the list, and the values' derivatives follow.
// RUN: %check-c %s %t -std=c++17
#include <cmath>
#include <initializer_list>
#include <iterator>
#include <list>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

// the list x, 2x, ..., 5x without its last element and with x^2 first,
// then sin(x) inserted second and 3x erased; the sum of squares
static double f(double x) {
  std::list<double> l;
  for (int i = 1; i <= 5; i++)
    l.push_back(x * i);
  l.pop_back();
  l.push_front(x * x);
  l.insert(std::next(l.begin()), std::sin(x));
  l.erase(std::next(l.begin(), 4)); // x^2, sin x, x, 2x, [3x], 4x
  double s = 0;
  for (double v : l)
    s += v * v;
  return s;
}

// d/dx of x^4 + sin^2 x + (1 + 4 + 16) x^2
static double f_dx(double x) { return 4 * x * x * x + 2 * std::sin(x) * std::cos(x) + 42 * x; }

// a list of the array's elements, reversed by push_front: the weighted sum
static double weighted(const double *a, int n) {
  std::list<double> l;
  for (int i = 0; i < n; i++)
    l.push_front(a[i]);
  double s = 0, w = 1;
  for (double v : l)
    s += (w++) * v * v;
  return s;
}

int main() {
  for (double x : {-0.5, 0.75, 2.0}) {
    check_close("reverse", __enzyme_autodiff((void *)f, enzyme_out, x), f_dx(x), 1e-12);
    check_close("forward", __enzyme_fwddiff((void *)f, enzyme_dup, x, 1.0), f_dx(x), 1e-12);
  }
  double a[3] = {1.0, -2.0, 0.5}, da[3] = {0, 0, 0};
  __enzyme_autodiff((void *)weighted, enzyme_dup, a, da, enzyme_const, 3);
  // a[2] comes first (weight 1), a[0] last (weight 3)
  check_close("da[0]", da[0], 3 * 2 * a[0], 1e-12);
  check_close("da[1]", da[1], 2 * 2 * a[1], 1e-12);
  check_close("da[2]", da[2], 1 * 2 * a[2], 1e-12);
  return check_exit();
}
