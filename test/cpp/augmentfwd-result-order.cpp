// __enzyme_augmentfwd declared to return a struct holding the tape and the
// primal result, in either order: Enzyme's own, the tape first (the
// TapeAndDouble of its C++ programs), or the result first (the
// DoubleAndTape of its virtualshadow.cpp). The types say which: the
// result comes first when the first field has the result's type. Each order
// is checked with a double and a float function, against the primal value
// and the analytic gradient from __enzyme_reverse seeded with 1.5.
// RUN: %check-c %s %t
// RUN: %kinase-cc -O0 %testinc -S -emit-llvm %s -o - | FileCheck %s
// The result-first struct takes field 0 of the augmented call's {result,
// tape} as its first field and the tape as its second.
// CHECK-LABEL: define {{.*}}@_Z12result_firstPdd(
// CHECK: [[AUG:%.*]] = call { double, ptr } @__kinase_aug_
// CHECK: [[RES:%.*]] = extractvalue { double, ptr } [[AUG]], 0
// CHECK: [[ONE:%.*]] = insertvalue { double, ptr } poison, double [[RES]], 0
// CHECK: [[TAPE:%.*]] = extractvalue { double, ptr } [[AUG]], 1
// CHECK: insertvalue { double, ptr } [[ONE]], ptr [[TAPE]], 1
#include <cmath>
#include "check.h"

extern "C" int enzyme_dup, enzyme_out, enzyme_const;

struct DoubleAndTape {
  double result;
  void *tape;
};
struct TapeAndDouble {
  void *tape;
  double result;
};
struct FloatAndTape {
  float result;
  void *tape;
};
struct TapeAndFloat {
  void *tape;
  float result;
};

DoubleAndTape __enzyme_augmentfwd_rf(void *, ...) __asm__("__enzyme_augmentfwd");
TapeAndDouble __enzyme_augmentfwd_tf(void *, ...) __asm__("__enzyme_augmentfwd");
FloatAndTape __enzyme_augmentfwd_frf(void *, ...) __asm__("__enzyme_augmentfwd");
TapeAndFloat __enzyme_augmentfwd_ftf(void *, ...) __asm__("__enzyme_augmentfwd");
double __enzyme_reverse(void *, ...);
float __enzyme_reverse_f(void *, ...) __asm__("__enzyme_reverse");

static double energy(double *p, double k) { return k * p[0] * p[0] + std::sin(p[1]); }
static float cube(float x) { return x * x * x; }

__attribute__((noinline)) DoubleAndTape result_first(double *p, double k) {
  return __enzyme_augmentfwd_rf((void *)energy, enzyme_dup, p, p + 2, enzyme_const, k);
}

static void check_energy(const char *what, double result, void *tape) {
  double p[4] = {0.5, 1.25, 0, 0}, k = 0.75;
  check_close(what, result, energy(p, k), 1e-15);
  __enzyme_reverse((void *)energy, enzyme_dup, p, p + 2, enzyme_const, k, 1.5, tape);
  check_close(what, p[2], 1.5 * 2 * k * p[0], 1e-15);
  check_close(what, p[3], 1.5 * std::cos(p[1]), 1e-15);
}

int main() {
  double a[4] = {0.5, 1.25, 0, 0};
  DoubleAndTape rf = result_first(a, 0.75);
  check_energy("double, result first", rf.result, rf.tape);

  double b[4] = {0.5, 1.25, 0, 0};
  TapeAndDouble tf = __enzyme_augmentfwd_tf((void *)energy, enzyme_dup, b, b + 2, enzyme_const, 0.75);
  check_energy("double, tape first", tf.result, tf.tape);

  FloatAndTape frf = __enzyme_augmentfwd_frf((void *)cube, 2.0f);
  check_close("float, result first: primal", frf.result, 8.0, 1e-7);
  float dx = __enzyme_reverse_f((void *)cube, 2.0f, 1.5f, frf.tape);
  check_close("float, result first: gradient", dx, 1.5 * 12.0, 1e-6);

  TapeAndFloat ftf = __enzyme_augmentfwd_ftf((void *)cube, 2.0f);
  check_close("float, tape first: primal", ftf.result, 8.0, 1e-7);
  dx = __enzyme_reverse_f((void *)cube, 2.0f, 1.5f, ftf.tape);
  check_close("float, tape first: gradient", dx, 1.5 * 12.0, 1e-6);
  return check_exit();
}
