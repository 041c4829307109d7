// Iterating over a std::map and a std::set, forwards and backwards, in the
// differentiated function: the iterators step with libstdc++'s
// _Rb_tree_increment and _Rb_tree_decrement, which the program does not
// define. Their models walk the tree in place of the call, reading the
// addresses of the nodes, so each node reached has its shadow at the same
// place in the shadow tree: a copy of the map (a tree of the same shape;
// one built by inserting in another order may be shaped otherwise), its
// values set to zero.
// RUN: %check-c %s %t -std=c++17
#include <cmath>
#include <iterator>
#include <map>
#include <set>
#include <string>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

using Params = std::map<std::string, double>;

// sum over the parameters in key order of rank * value^2, then the last
// two again, walking back from the end
static double weighted(const Params *p) {
  double s = 0, rank = 1;
  for (const auto &[name, value] : *p)
    s += (rank++) * value * value;
  auto last = std::prev(p->end());
  s += std::sin(last->second) + std::prev(last)->second;
  return s;
}

// a set of keys (Const) selecting which values count
static double selected(const std::map<int, double> *values, const std::set<int> *keys) {
  double s = 0;
  for (int k : *keys)
    s += values->at(k) * values->at(k) * values->at(k);
  for (auto it = keys->rbegin(); it != keys->rend(); ++it)
    s += values->at(*it);
  return s;
}

int main() {
  Params p = {{"alpha", 0.5}, {"beta", -1.25}, {"gamma", 2.0}, {"delta", 0.75}};
  Params dp = p;
  for (auto &kv : dp)
    kv.second = 0.0;
  __enzyme_autodiff((void *)weighted, enzyme_dup, &p, &dp);
  // key order: alpha, beta, delta, gamma
  check_close("alpha", dp["alpha"], 1 * 2 * 0.5, 1e-12);
  check_close("beta", dp["beta"], 2 * 2 * -1.25, 1e-12);
  check_close("delta", dp["delta"], 3 * 2 * 0.75 + 1, 1e-12);
  check_close("gamma", dp["gamma"], 4 * 2 * 2.0 + std::cos(2.0), 1e-12);

  Params tangent = p;
  for (auto &kv : tangent)
    kv.second = 1.0;
  double t = __enzyme_fwddiff((void *)weighted, enzyme_dup, &p, &tangent);
  check_close("forward", t, 1 * 2 * 0.5 + 2 * 2 * -1.25 + (3 * 2 * 0.75 + 1) + (4 * 2 * 2.0 + std::cos(2.0)),
              1e-12);

  std::map<int, double> values = {{1, 0.5}, {4, -2.0}, {9, 1.5}, {16, 3.0}}, dvalues = values;
  for (auto &kv : dvalues)
    kv.second = 0.0;
  std::set<int> keys = {4, 16};
  __enzyme_autodiff((void *)selected, enzyme_dup, &values, &dvalues, enzyme_const, &keys);
  check_close("unselected", dvalues[1], 0, 0);
  check_close("selected 4", dvalues[4], 3 * 4.0 + 1, 1e-12);
  check_close("selected 16", dvalues[16], 3 * 9.0 + 1, 1e-12);
  return check_exit();
}
