// A function template differentiated at float and at double, in both
// modes: each instantiation is its own function, with its own derivative;
// float derivatives are computed in float. The Enzyme entry points are
// templates too (Enzyme's C++ header declares them so), returning the type
// asked for.
// RUN: %check-c %s %t -std=c++17
#include <cmath>
#include <initializer_list>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
template <typename R, typename... Args> R __enzyme_autodiff(Args...);
template <typename R, typename... Args> R __enzyme_fwddiff(Args...);

// sum over i of w[i] * exp(x * i / n) + x^3 / 3: a loop, a math call, powers
template <typename T> T model(T x, const T *w, int n) {
  T s = x * x * x / T(3);
  for (int i = 0; i < n; i++)
    s += w[i] * std::exp(x * T(i) / T(n));
  return s;
}

template <typename T> T model_dx(T x, const T *w, int n) {
  T d = x * x;
  for (int i = 0; i < n; i++)
    d += w[i] * std::exp(x * T(i) / T(n)) * T(i) / T(n);
  return d;
}

template <typename T> int check_at(const char *type, T x, double rtol) {
  const int n = 4;
  T w[n] = {T(0.5), T(-1.25), T(2), T(0.75)}, dw[n] = {0, 0, 0, 0};
  T grad = __enzyme_autodiff<T>((void *)model<T>, enzyme_out, x, enzyme_dup, w, dw, enzyme_const, n);
  T tangent = __enzyme_fwddiff<T>((void *)model<T>, enzyme_dup, x, T(1), enzyme_const, w, enzyme_const, n);
  check_close(type, (double)grad, (double)model_dx(x, w, n), rtol);
  check_close(type, (double)tangent, (double)model_dx(x, w, n), rtol);
  for (int i = 0; i < n; i++)
    check_close(type, (double)dw[i], (double)std::exp(x * T(i) / T(n)), rtol);
  return 0;
}

int main() {
  for (double x : {-1.5, 0.25, 2.0}) {
    check_at<double>("double", x, 1e-12);
    check_at<float>("float", (float)x, 1e-5);
  }
  // The float derivative is a float computation: its result is a float,
  // not a double rounded afterwards (checked through sizeof the result).
  check_true("float result", sizeof(__enzyme_fwddiff<float>((void *)model<float>, enzyme_dup, 1.0f, 1.0f,
                                                          enzyme_const, (const float *)nullptr,
                                                          enzyme_const, 0)) == sizeof(float));
  return check_exit();
}
