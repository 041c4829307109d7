/* throwing_log.h: the function of the exception tests (test/cpp/exceptions-*.cpp),
 * C++ only.
 *
 *   logs(x) = 3 x log(x), from a std::vector of three copies of x, each
 *             through checked_log, which throws std::domain_error where
 *             x <= 0 (so logs throws there, with the vector to destroy);
 *   logs_derivative(x) = 3 log(x) + 3.
 */
#ifndef KINASE_TEST_THROWING_LOG_H
#define KINASE_TEST_THROWING_LOG_H

#include <stdexcept>
#include <vector>

__attribute__((noinline)) static double checked_log(double x) {
  if (x <= 0)
    throw std::domain_error("log of a non-positive number");
  return __builtin_log(x);
}

static inline double logs_derivative(double x) { return 3 * __builtin_log(x) + 3; }

#endif
