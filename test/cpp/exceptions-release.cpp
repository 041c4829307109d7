// When the primal throws inside a derivative, what the derivative allocated
// is released on the way out, counted by this program's own malloc and free
// (test/cpp/include/live_blocks.h), which operator new and the derivatives'
// shadows and tapes go through too. Compiled with exceptions.
//
// Forward mode unwinds through the primal's cleanups, differentiated like
// the rest: the vector's destructor frees the vector's buffer and its shadow.
// Reverse mode: the augmented sweep's landing pads free the tape (its loop
// records on the heap, the tapes of callees that returned) and the shadows
// it allocated (the vector buffer's), which the reverse sweep would have
// freed, before the primal's cleanups run. The throw comes after some
// iterations of a loop, so records and callee tapes are there to free.
// RUN: %check-c %s %t -std=c++17 -I%S/include
#include "check.h"
#include "live_blocks.h"
#include "throwing_log.h"

extern "C" int enzyme_dup, enzyme_out, enzyme_const;
double __enzyme_fwddiff(void *, ...);
double __enzyme_autodiff(void *, ...);

// 3 x log(x), throwing where x <= 0
static double f(double x) {
  std::vector<double> v(3, x);
  double s = 0;
  for (double e : v)
    s += e * checked_log(e);
  return s;
}

// sum over i < n of (x - i) log(x - i), throwing at the first x - i <= 0
static double g(double x, int n) {
  std::vector<double> v(n);
  for (int i = 0; i < n; i++)
    v[i] = x - i;
  double s = 0;
  for (int i = 0; i < n; i++)
    s += v[i] * checked_log(v[i]);
  return s;
}

static double g_derivative(double x, int n) {
  double d = 0;
  for (int i = 0; i < n; i++)
    d += __builtin_log(x - i) + 1;
  return d;
}

static bool forward_throws(double x, double *tangent) {
  try {
    *tangent = __enzyme_fwddiff((void *)f, enzyme_dup, x, 1.0);
    return false;
  } catch (const std::domain_error &) {
    return true;
  }
}

static bool reverse_throws(double x, int n, double *grad) {
  try {
    *grad = __enzyme_autodiff((void *)g, enzyme_out, x, enzyme_const, n);
    return false;
  } catch (const std::domain_error &) {
    return true;
  }
}

int main() {
  double xs[] = {2.0, -1.0, 0.0, 0.5};
  for (double x : xs) {
    double t = 0;
    forward_throws(x, &t); // the first throw allocates the unwinder's caches
    long before = live_blocks;
    check_true("forward: throws where x <= 0", forward_throws(x, &t) == (x <= 0));
    check_true("forward: every allocation is released", live_blocks == before);
    if (x > 0)
      check_close("forward f'(x)", t, logs_derivative(x), 1e-12);
  }
  const int n = 6;
  double ys[] = {7.5, 3.5, 6.0, 0.25, 5.5, 1.0};
  for (double x : ys) {
    double grad = 0;
    long before = live_blocks;
    bool threw = reverse_throws(x, n, &grad);
    check_true("reverse: throws where x - (n - 1) <= 0", threw == (x - (n - 1) <= 0));
    check_true("reverse: every allocation is released", live_blocks == before);
    if (!threw)
      check_close("reverse g'(x)", grad, g_derivative(x, n), 1e-12);
  }
  return check_exit();
}
