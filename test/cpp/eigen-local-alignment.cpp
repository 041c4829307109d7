// Eigen picks a loop's path from the destination's address: scalars up
// to the first element at a multiple of 16 bytes (32, 64 with AVX), aligned
// vector stores from there. A Matrix3d local (72 bytes, aligned to 8) built
// column by column (`M << a, b, c`) may start 8 bytes past a multiple of
// 16, and its shadow, from calloc, does not: the shadow's stores took the
// primal's path and faulted on an aligned vector store. A local with a
// shadow and its shadow now both start at a multiple of 64 bytes. Both
// modes, against central differences.
// RUN: %check-c %s %t -std=c++17
#include <eigen3/Eigen/Dense>

#include "check.h"

extern "C" int enzyme_dup;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

using Eigen::Matrix3d;
using Eigen::Vector3d;

__attribute__((noinline)) static double columns(const Vector3d *a, const Vector3d *b) {
  Vector3d c = a->cross(*b);
  Matrix3d M;
  M << *a, *b, c;
  return M.determinant() + (M * *a).squaredNorm() + M.transpose().col(2).sum();
}

int main() {
  Vector3d a(0.3, -1.2, 0.8), b(1.1, 0.4, -0.5), da = Vector3d::Zero(), db = Vector3d::Zero();
  __enzyme_autodiff((void *)columns, enzyme_dup, &a, &da, enzyme_dup, &b, &db);
  const double h = 1e-6;
  for (int i = 0; i < 3; i++) {
    Vector3d ap = a, am = a, bp = b, bm = b;
    ap(i) += h, am(i) -= h, bp(i) += h, bm(i) -= h;
    double fa = (columns(&ap, &b) - columns(&am, &b)) / (2 * h);
    double fb = (columns(&a, &bp) - columns(&a, &bm)) / (2 * h);
    check_close("reverse, d/da", da(i), fa, 1e-6);
    check_close("reverse, d/db", db(i), fb, 1e-6);
    Vector3d ta = Vector3d::Zero(), tb = Vector3d::Zero();
    ta(i) = 1;
    check_close("forward, d/da", __enzyme_fwddiff((void *)columns, enzyme_dup, &a, &ta, enzyme_dup, &b, &tb), fa, 1e-6);
  }
  return check_exit();
}
