// Eigen (Debian's libeigen3-dev): the gradient of a least-squares loss
// ||A x - b||^2 written with coefficient access on fixed-size matrices, A
// and b enzyme_const, both modes; and Eigen's own sum() and + on fixed-size
// matrices. Expressions that mix Const and differentiated matrices in one
// Eigen expression object (A * x with A Const) are not supported yet: a
// pointer may then point to memory with or without a shadow.
// RUN: %check-c %s %t -std=c++17 -fno-exceptions
#include <eigen3/Eigen/Dense>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

using Mat = Eigen::Matrix<double, 4, 2>;
using Vec4 = Eigen::Matrix<double, 4, 1>;
using Vec2 = Eigen::Matrix<double, 2, 1>;

static double loss(const Vec2 *x, const Mat *A, const Vec4 *b) {
  double s = 0;
  for (int i = 0; i < A->rows(); i++) {
    double r = (*A)(i, 0) * (*x)(0) + (*A)(i, 1) * (*x)(1) - (*b)(i);
    s += r * r;
  }
  return s;
}

static double total(const Mat *m, const Mat *n) {
  Mat sum = *m + *n;
  return sum.sum();
}

int main() {
  Mat A;
  A << 1, 2, 3, 4, 5, 6, 7, 8;
  Vec4 b(1, 0, 2, 1);
  Vec2 x(0.5, -0.25), dx = Vec2::Zero();
  Vec2 want = 2 * A.transpose() * (A * x - b);
  __enzyme_autodiff((void *)loss, enzyme_dup, &x, &dx, enzyme_const, &A, enzyme_const, &b);
  check_close("least squares: d/dx0", dx(0), want(0), 1e-13);
  check_close("least squares: d/dx1", dx(1), want(1), 1e-13);

  Vec2 tx(0, 1);
  double t = __enzyme_fwddiff((void *)loss, enzyme_dup, &x, &tx, enzyme_const, &A, enzyme_const, &b);
  check_close("least squares: forward along x1", t, want(1), 1e-13);

  Mat m = Mat::Constant(2.0), n = Mat::Constant(3.0), dm = Mat::Zero(), dn = Mat::Zero();
  __enzyme_autodiff((void *)total, enzyme_dup, &m, &dm, enzyme_dup, &n, &dn);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 2; j++)
      check_true("(m + n).sum(): gradients are 1", dm(i, j) == 1.0 && dn(i, j) == 1.0);
  return check_exit();
}
