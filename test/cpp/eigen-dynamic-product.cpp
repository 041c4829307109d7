// Eigen's product of dynamic-size matrices, differentiated in reverse mode:
// f(W, M) = sum((W - M) * (W - M)), as Enzyme's eigensumsqdyn.cpp writes it
// (a MatrixXd temporary) and as eigensumsqdyn-notmp.cpp does (auto&& of
// the difference expression, whose evaluation copies a CwiseNullaryOp).
// A 4x4 product takes Eigen's coefficient-based path, a 24x24 one its
// blocked GEMM kernel. With D = W - M and u all ones, f = u'DDu, so
// df/dW_ab = (Du)_b + (D'u)_a and df/dM = -df/dW. And a matrix-vector
// product (GEMV from 24x24): g(W, b) = |Wb|^2, dW = 2 Wb b', db = 2 W'Wb.
// RUN: %check-c %s %t -std=c++17
#include <eigen3/Eigen/Dense>
#include <cmath>

#include "check.h"

extern "C" int enzyme_dup;
double __enzyme_autodiff(void *, ...);

using Eigen::MatrixXd;

__attribute__((noinline)) static double with_temporary(const MatrixXd *W, const MatrixXd *M) {
  MatrixXd diff = *W - *M;
  return (diff * diff).sum();
}

__attribute__((noinline)) static double without_temporary(const MatrixXd *W, const MatrixXd *M) {
  auto &&diff = *W - *M;
  return (diff * diff).sum();
}

template <double (*F)(const MatrixXd *, const MatrixXd *)>
static void check_product(const char *what, int n) {
  MatrixXd W(n, n), M(n, n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      W(i, j) = std::sin(i + 2.0 * j);
      M(i, j) = std::cos(1.0 * i * j) / 2;
    }
  MatrixXd dW = MatrixXd::Zero(n, n), dM = MatrixXd::Zero(n, n);
  __enzyme_autodiff((void *)F, enzyme_dup, &W, &dW, enzyme_dup, &M, &dM);
  MatrixXd D = W - M;
  Eigen::VectorXd rows = D.rowwise().sum(), cols = D.colwise().sum().transpose();
  int wrong = 0;
  for (int a = 0; a < n; a++)
    for (int b = 0; b < n; b++) {
      double want = rows(b) + cols(a);
      wrong += std::fabs(dW(a, b) - want) > 1e-12 * (1 + std::fabs(want));
      wrong += std::fabs(dM(a, b) + want) > 1e-12 * (1 + std::fabs(want));
    }
  check_true(what, wrong == 0);
}

__attribute__((noinline)) static double norm_of_product(const MatrixXd *W, const Eigen::VectorXd *b) {
  Eigen::VectorXd y = *W * *b;
  return y.squaredNorm();
}

static void check_matrix_vector(const char *what, int n) {
  MatrixXd W(n, n), dW = MatrixXd::Zero(n, n);
  Eigen::VectorXd b(n), db = Eigen::VectorXd::Zero(n);
  for (int i = 0; i < n; i++) {
    b(i) = std::cos(1.0 * i);
    for (int j = 0; j < n; j++)
      W(i, j) = std::sin(i + 2.0 * j);
  }
  __enzyme_autodiff((void *)norm_of_product, enzyme_dup, &W, &dW, enzyme_dup, &b, &db);
  Eigen::VectorXd y = W * b;
  double error_W = (dW - 2 * y * b.transpose()).cwiseAbs().maxCoeff();
  double error_b = (db - 2 * W.transpose() * y).cwiseAbs().maxCoeff();
  check_true(what, error_W < 1e-12 && error_b < 1e-12);
}

int main() {
  check_product<with_temporary>("temporary, 4x4", 4);
  check_product<with_temporary>("temporary, 24x24 (GEMM)", 24);
  check_product<without_temporary>("no temporary, 4x4", 4);
  check_product<without_temporary>("no temporary, 24x24 (GEMM)", 24);
  check_matrix_vector("matrix-vector, 4x4", 4);
  check_matrix_vector("matrix-vector, 24x24 (GEMV)", 24);
  return check_exit();
}
