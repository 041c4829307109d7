// std::sort on a std::vector inside a differentiated function: a local copy
// of Const keys, sorted to weight the inputs, and a vector of differentiated
// values sorted before a weighted sum. libstdc++'s insertion sort copies its
// iterators (`__last = __next`, a struct holding the pointer, copied as an
// i64): the local iterator a pointer is copied into through an integer needs
// a shadow for the pointer's shadow. Before, it had none, the copy stored a
// null shadow, and the reverse sweep crashed.
//
//   weighted(x; keys) = sum over i of sorted(keys)[i] x[i]:  d/dx[i] = sorted(keys)[i]
//   ranked(x; c) = sum over i of (i + 1) sorted(c * x)[i]:   the adjoint goes to
//     the x[j] whose product lands at rank i, times (i + 1) c[j]
// RUN: %check-c %s %t -std=c++17
#include <algorithm>
#include <vector>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

static double weighted(const double *x, const std::vector<double> *keys) {
  std::vector<double> k = *keys;
  std::sort(k.begin(), k.end());
  double s = 0;
  for (size_t i = 0; i < k.size(); i++)
    s += k[i] * x[i];
  return s;
}

static double ranked(const double *x, const std::vector<double> *c) {
  std::vector<double> v(c->size());
  for (size_t i = 0; i < v.size(); i++)
    v[i] = x[i] * (*c)[i];
  std::sort(v.begin(), v.end(), [](double a, double b) { return a < b; });
  double s = 0;
  for (size_t i = 0; i < v.size(); i++)
    s += (i + 1) * v[i];
  return s;
}

int main() {
  const int n = 20; // past the insertion sort's threshold of 16: introsort too
  std::vector<double> keys(n), c(n);
  double x[n], dx[n] = {0}, dr[n] = {0};
  for (int i = 0; i < n; i++) {
    keys[i] = (i * 7) % n + 0.5;  // a permutation of 0.5 .. n - 0.5
    c[i] = 1.0 + 0.1 * ((i * 3) % 5);
    x[i] = 1.0 + 0.01 * i;
  }
  __enzyme_autodiff((void *)weighted, enzyme_dup, x, dx, enzyme_const, &keys);
  std::vector<double> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < n; i++)
    check_close("weighted: d/dx[i] is the i-th smallest key", dx[i], sorted[i], 0);

  __enzyme_autodiff((void *)ranked, enzyme_dup, x, dr, enzyme_const, &c);
  for (int j = 0; j < n; j++) {
    int rank = 0; // the products are distinct: the rank of x[j] c[j]
    for (int i = 0; i < n; i++)
      rank += x[i] * c[i] < x[j] * c[j];
    check_close("ranked: d/dx[j] = (rank + 1) c[j]", dr[j], (rank + 1) * c[j], 1e-15);
  }
  return check_exit();
}
