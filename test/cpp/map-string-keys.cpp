// Named parameters in a Const std::map<std::string, double>, looked up with
// at() and find() inside the differentiated function. The key is a local
// std::string the caller builds from a literal; std::map::at passes it
// along to code that may end in std::__throw_out_of_range or clang's
// __clang_call_terminate, functions that never return and so hand no
// memory back: the string gets no shadow, and the tree's nodes (Const) are
// compared with it as in the primal. Before, the key had a shadow and the
// lookup was "a pointer ... with a shadow or without one".
//
//   energy(x) = k x^2 / 2 + g x (+ c where "c" is in the table)
//   d/dx = k x + g
// RUN: %check-c %s %t -std=c++17
#include <map>
#include <string>

#include "check.h"

extern "C" int enzyme_const, enzyme_out, enzyme_dup;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

using Table = std::map<std::string, double>;

static double energy(const Table *t, double x) {
  double e = 0.5 * t->at("k") * x * x + t->at("g") * x;
  auto c = t->find("c");
  if (c != t->end())
    e += c->second;
  return e;
}

int main() {
  Table t{{"k", 4.0}, {"g", -1.5}, {"c", 10.0}};
  const double x = 0.75, want = 4.0 * x - 1.5;
  check_close("reverse", __enzyme_autodiff((void *)energy, enzyme_const, &t, enzyme_out, x), want, 1e-15);
  check_close("forward", __enzyme_fwddiff((void *)energy, enzyme_const, &t, enzyme_dup, x, 1.0), want, 1e-15);
  return check_exit();
}
