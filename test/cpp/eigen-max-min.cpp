// Eigen's largest and smallest coefficients (maxCoeff, minCoeff, cwiseMax,
// cwiseMin) of vectorised doubles and floats. For clang, Eigen takes the
// path it keeps for GCC before 6.3 (clang says __GNUC__ is 4): its SSE
// pmax and pmin are inline assembly (`maxpd`, `minps`, and with -mavx
// `vmaxpd`, ...), which Kinase reads as the compare and select they are
// (rules/asm.def); an error before. Both modes, against the derivative
// picked by hand (the coefficients have no ties).
// RUN: %check-c %s %t -std=c++17
// RUN: %check-c %s %t.avx -std=c++17 -mavx
#include <eigen3/Eigen/Dense>

#include "check.h"

extern "C" int enzyme_dup;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
float __enzyme_autodiff_float(void *, ...) __asm__("__enzyme_autodiff");

template <typename V> static typename V::Scalar spread(const V *v, const V *w) {
  return 3 * v->maxCoeff() - 2 * v->minCoeff() + v->cwiseMax(*w).sum() + v->cwiseMin(*w).sum();
}

// d spread / d v_i and d spread / d w_i, by hand
template <typename V> static void by_hand(const V &v, const V &w, V &dv, V &dw) {
  Eigen::Index hi, lo;
  v.maxCoeff(&hi);
  v.minCoeff(&lo);
  dv.setZero();
  dw.setZero();
  dv(hi) += 3;
  dv(lo) -= 2;
  for (Eigen::Index i = 0; i < v.size(); i++) {
    (v(i) > w(i) ? dv : dw)(i) += 1; // cwiseMax
    (v(i) < w(i) ? dv : dw)(i) += 1; // cwiseMin
  }
}

template <typename V> static void check(const char *what, double tol) {
  const int n = 11;
  V v(n), w(n), dv = V::Zero(n), dw = V::Zero(n), want_v(n), want_w(n);
  for (int i = 0; i < n; i++) {
    v(i) = std::sin(1.3 * i + 0.2);
    w(i) = 0.5 * std::cos(0.7 * i);
  }
  using S = typename V::Scalar;
  if (sizeof(S) == sizeof(double))
    __enzyme_autodiff((void *)spread<V>, enzyme_dup, &v, &dv, enzyme_dup, &w, &dw);
  else
    __enzyme_autodiff_float((void *)spread<V>, enzyme_dup, &v, &dv, enzyme_dup, &w, &dw);
  by_hand(v, w, want_v, want_w);
  for (int i = 0; i < n; i++) {
    check_close(what, dv(i), want_v(i), tol);
    check_close(what, dw(i), want_w(i), tol);
  }
  if (sizeof(S) == sizeof(double)) {
    V tv = V::Zero(n), tw = V::Zero(n);
    Eigen::Index hi;
    v.maxCoeff(&hi);
    tv(hi) = 1;
    double t = __enzyme_fwddiff((void *)spread<V>, enzyme_dup, &v, &tv, enzyme_dup, &w, &tw);
    check_close("forward, along the largest", t, want_v(hi), tol);
  }
}

int main() {
  check<Eigen::VectorXd>("doubles", 1e-15);
  check<Eigen::VectorXf>("floats", 1e-6);
  return check_exit();
}
