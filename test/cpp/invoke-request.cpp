// Requests in C++ code as Enzyme's C++ examples write them: declared without
// extern "C" (the mangled _Z17__enzyme_autodiffPvz), made inside a function
// that has a std::vector local, so that clang emits each as an invoke with a
// landing pad rather than a call. Both modes, against the analytic derivative.
// RUN: %kinase-cc -O0 %s -o %t.O0 && %t.O0
// RUN: %kinase-cc -O2 %s -o %t.O2 && %t.O2
// RUN: %clangxx -fpass-plugin=%plugin -O2 %s -o %t.plugin -lm && %t.plugin
// RUN: %kinase-cc -O2 -S -emit-llvm %s -o - | FileCheck %s
// CHECK-LABEL: define {{.*}}@main(
// CHECK-NOT: {{invoke|call}} {{.*}}@{{.*}}__enzyme_
// CHECK: ret i32
#include <cmath>
#include <cstdio>
#include <vector>

int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static double f(double x) { return x * std::sin(x); }

int main() {
  std::vector<double> xs = {0.5, 1.0, 2.0, -3.0};
  int failures = 0;
  for (double x : xs) {
    double g = __enzyme_autodiff((void *)f, enzyme_out, x);
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, 1.0);
    double want = std::sin(x) + x * std::cos(x);
    if (std::fabs(g - want) > 1e-12 || std::fabs(t - want) > 1e-12) {
      std::printf("FAIL f'(%g): reverse %.17g forward %.17g want %.17g\n", x, g, t, want);
      failures++;
    }
  }
  return failures != 0;
}
