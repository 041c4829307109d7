// When the primal throws inside __enzyme_fwddiff, the forward derivative
// unwinds through the primal's cleanups, differentiated like the rest: the
// vector's destructor frees the vector's buffer and its shadow. Counted by
// this program's own operator new and delete, which the derivative's shadow
// allocations go through too. Compiled with exceptions.
// RUN: %check-c %s %t -std=c++17
#include <cstdlib>
#include <new>

#include "check.h"
#include "throwing_log.h"

extern "C" int enzyme_dup;
double __enzyme_fwddiff(void *, ...);

static long live; // allocations not yet deleted

void *operator new(std::size_t n) {
  live++;
  return std::malloc(n);
}
void operator delete(void *p) noexcept {
  live -= p != nullptr;
  std::free(p);
}
void operator delete(void *p, std::size_t) noexcept { operator delete(p); }

// 3 x log(x), throwing where x <= 0
static double f(double x) {
  std::vector<double> v(3, x);
  double s = 0;
  for (double e : v)
    s += e * checked_log(e);
  return s;
}

static bool throws(double x, double *tangent) {
  try {
    *tangent = __enzyme_fwddiff((void *)f, enzyme_dup, x, 1.0);
    return false;
  } catch (const std::domain_error &) {
    return true;
  }
}

int main() {
  double xs[] = {2.0, -1.0, 0.0, 0.5};
  for (double x : xs) {
    long before = live;
    double t = 0;
    check_true("throws where x <= 0", throws(x, &t) == (x <= 0));
    check_true("every allocation is released", live == before);
    if (x > 0)
      check_close("forward f'(x)", t, logs_derivative(x), 1e-12);
  }
  return check_exit();
}
