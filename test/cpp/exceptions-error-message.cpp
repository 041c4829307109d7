// Error checks that throw the standard exceptions with a message built at
// run time (std::string + std::to_string), as CUDA_CHECK-style macros do in
// C++ host code: the exception classes' constructors take a std::string and
// carry no derivative. They had no rule ('external function
// std::runtime_error::runtime_error(std::string const&) has no derivative
// rule'). The normal path gives the analytic gradient; a throw reaches the
// caller's catch with its message.
// RUN: %check-c %s %t -std=c++17
#include <stdexcept>
#include <string>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

#define REQUIRE(cond, what)                                                                      \
  do {                                                                                           \
    if (!(cond))                                                                                 \
      throw std::runtime_error(std::string(what) + " failed at line " + std::to_string(__LINE__)); \
  } while (0)

static double scaled(double x, int n) {
  if (n <= 0)
    throw std::invalid_argument("n must be positive, got " + std::to_string(n));
  REQUIRE(x > 0, "x > 0");
  return n * x * x * x;
}

int main() {
  check_close("normal path, reverse", __enzyme_autodiff((void *)scaled, 2.0, enzyme_const, 3), 36.0, 1e-14);
  check_close("normal path, forward", __enzyme_fwddiff((void *)scaled, 2.0, 1.0, enzyme_const, 3), 36.0, 1e-14);
  std::string message;
  try {
    __enzyme_autodiff((void *)scaled, -1.0, enzyme_const, 3);
  } catch (const std::runtime_error &e) {
    message = e.what();
  }
  check_true("runtime_error's message", message.rfind("x > 0 failed at line ", 0) == 0);
  message.clear();
  try {
    __enzyme_autodiff((void *)scaled, 2.0, enzyme_const, 0);
  } catch (const std::invalid_argument &e) {
    message = e.what();
  }
  check_true("invalid_argument's message", message == "n must be positive, got 0");
  return check_exit();
}
