// Constants looked up in a global std::unordered_map<std::string, double>
// inside the differentiated function. The map holds a float (its maximum
// load factor), so the global has a shadow, zero: its shadow buckets are
// null, the map having been filled before any derivative ran. Walking the
// shadow table beside the primal read through them (a crash in both sweeps
// of reverse mode); an access whose shadow base is null, or an address a
// callee computed from null (`&node->second` returned by the lookup),
// reads zeros and writes to a sink, as a Const pointer's would.
// RUN: %check-c %s %t -std=c++17
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>

#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
int enzyme_dup, enzyme_const;

static std::unordered_map<std::string, double> named = {{"a", 3.0}, {"b", 0.5}};
static std::unordered_map<int, double> coef = {{0, 1.5}, {1, -2.0}, {2, 0.25}};

// (a + b) sum_i c[i % 3] x_i
static double f(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += coef.at(i % 3) * std::sin(x[i]);
  return s * (named.at("a") + named["b"]);
}

int main() {
  double x[5] = {1, 2, 3, 0.5, 1.5}, d[5] = {0}, c[3] = {1.5, -2.0, 0.25};
  __enzyme_autodiff((void *)f, enzyme_dup, x, d, enzyme_const, 5);
  for (int i = 0; i < 5; i++)
    check_close("reverse", d[i], 3.5 * c[i % 3] * std::cos(x[i]), 1e-12);
  for (int i = 0; i < 5; i++) {
    double dx[5] = {0};
    dx[i] = 1;
    check_close("forward", __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_const, 5), d[i], 1e-12);
  }
  return check_exit();
}
