// <enzyme/enzyme> with a struct passed by value, which the C++ ABI passes as
// two doubles: not supported yet, a located error at the request.
// RUN: not %kinase-cc -std=c++17 -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -std=c++17 -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <enzyme/enzyme>

struct pair {
  double x, y;
};

static double mul(pair p) { return p.x * p.y; }

double tangent() {
  // CHECK: cxx-header-struct-by-value.cpp:{{[0-9]+}}:{{[0-9]+}}: error: kinase: in function '{{.*}}tangent{{.*}}': __enzyme_fwddiff: enzyme::autodiff: an argument passed by value as several values (a struct passed by value) is not supported yet; pass it by pointer or reference
  return enzyme::get<0>(enzyme::autodiff<enzyme::Forward>(mul, enzyme::Duplicated{pair{2, 3}, pair{1, 0}}));
}
