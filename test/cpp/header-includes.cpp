// <enzyme/enzyme> and kinase.h in either order, <kinase/enzyme> as another
// name, markers declared by the program itself (C++ linkage, as Enzyme's C++
// tests do), and a request in a function with a std::vector local, whose
// calls are invokes.
// RUN: %check-c %s %t -std=c++17 -DFIRST_KINASE_H
// RUN: %check-c %s %t -std=c++17
#ifdef FIRST_KINASE_H
#include <kinase.h>
#include <kinase/enzyme>
#else
#include <enzyme/enzyme>
#include <kinase.h>
#endif
#include <vector>

#include "check.h"

int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;

static double sum(const std::vector<double> &v) {
  double s = 0;
  for (double x : v)
    s += x * x;
  return s;
}

int main() {
  std::vector<double> v = {1.0, 2.0, 3.0}, dv(3);
  enzyme::autodiff<enzyme::Reverse>(sum, enzyme::DuplicatedNoNeed<const std::vector<double> &>(v, dv));
  for (int i = 0; i < 3; i++)
    check_close("d sum(v^2) / dv", dv[i], 2 * v[i], 1e-15);
  return check_exit();
}
