// std::stable_sort and std::inplace_merge inside the differentiated
// function. Their merge takes a buffer from std::get_temporary_buffer(n),
// which returns {operator new(n, std::nothrow), n} as a std::pair its
// constructor fills: its call, given only an integer, was taken as handing
// back no memory with a shadow, and the buffer the values are merged
// through had none ("a pointer here may point either to memory with a
// shadow ... or to memory without one"). A function given no pointers that
// allocates and returns pointers is differentiated for their shadows.
// RUN: %check-c %s %t -std=c++17 -Wno-deprecated-declarations
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <vector>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

// sorted descending, each weighted by its rank
static double ranked(double x) {
  std::vector<double> v;
  for (int i = 0; i < 9; i++)
    v.push_back(std::sin(x * (i + 1)) + 0.1 * i);
  std::stable_sort(v.begin(), v.end(), [](double a, double b) { return a > b; });
  double s = 0;
  for (size_t i = 0; i < v.size(); i++)
    s += (i + 1) * v[i];
  return s;
}

struct Item {
  int key;
  double w;
};

// equal keys keep their order: the weights move with them
static double by_key(double x) {
  std::vector<Item> items{{2, x}, {1, x * x}, {2, 3 * x}, {0, std::exp(x)}, {1, 2.0}};
  std::stable_sort(items.begin(), items.end(), [](const Item &a, const Item &b) { return a.key < b.key; });
  double s = 0;
  for (size_t i = 0; i < items.size(); i++)
    s += (i + 1) * items[i].w;
  return s;
}

static double merged(double x) {
  std::vector<double> v{0.1, x, 2.0, 0.5 * x, x * x, 3.0};
  std::inplace_merge(v.begin(), v.begin() + 3, v.end());
  return v[0] + 2 * v[1] + 3 * v[2] + 4 * v[3] + 5 * v[4] + 6 * v[5];
}

int main() {
  for (double x : {0.3, 0.9})
    check_both_modes(ranked, x, 1e-6);
  // items in order: {0, e^x}, {1, x^2}, {1, 2}, {2, x}, {2, 3x}
  double x = 0.7;
  check_close("by_key' reverse", __enzyme_autodiff((void *)by_key, x), std::exp(x) + 4 * x + 4 + 15, 1e-12);
  check_close("by_key' forward", __enzyme_fwddiff((void *)by_key, x, 1.0), std::exp(x) + 4 * x + 4 + 15, 1e-12);
  // x = 1.5: 0.1, 0.75, 1.5, 2, 2.25, 3 -> d/dx = 2 (0.5) + 3 + 5 (2x)
  check_close("merged' reverse", __enzyme_autodiff((void *)merged, 1.5), 1 + 3 + 15, 1e-12);
  check_close("merged' forward", __enzyme_fwddiff((void *)merged, 1.5, 1.0), 1 + 3 + 15, 1e-12);
  return check_exit();
}
