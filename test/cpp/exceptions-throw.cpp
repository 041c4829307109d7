// A differentiated function that throws on a condition, compiled with
// exceptions. On the normal path the gradient is the analytic one; when the
// primal throws inside __enzyme_autodiff or __enzyme_fwddiff, the exception
// unwinds through the derivative (running the primal's cleanups: the
// vector's destructor) to the try/catch around the request, and the program
// goes on, asking for more derivatives. The throw is in a callee of the
// differentiated function, below a frame that holds a std::vector.
// RUN: %check-c %s %t -std=c++17 -I%S/include
#include "check.h"
#include "throwing_log.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static int destroyed; // counts Guard destructors, run by the landing pads

struct Guard {
  ~Guard() { destroyed++; }
};

// 3 x log(x), throwing where x <= 0
static double f(double x) {
  Guard guard;
  std::vector<double> v(3, x);
  double s = 0;
  for (double e : v)
    s += e * checked_log(e);
  return s;
}

// Asks for a derivative at x; true when the primal threw.
static bool reverse_throws(double x, double *grad) {
  try {
    *grad = __enzyme_autodiff((void *)f, enzyme_out, x);
    return false;
  } catch (const std::domain_error &) {
    return true;
  }
}

static bool forward_throws(double x, double *tangent) {
  try {
    std::vector<double> local(2, x); // the request is an invoke with cleanups of its own
    *tangent = __enzyme_fwddiff((void *)f, enzyme_dup, local[0], 1.0);
    return false;
  } catch (const std::domain_error &) {
    return true;
  }
}

int main() {
  double xs[] = {2.0, -1.0, 0.5, 0.0, 3.0};
  for (int round = 0; round < 2; round++)
    for (double x : xs) {
      double g = 0, t = 0;
      int before = destroyed;
      bool threw_reverse = reverse_throws(x, &g);
      bool threw_forward = forward_throws(x, &t);
      check_true("the primal throws exactly where x <= 0", threw_reverse == (x <= 0) && threw_forward == (x <= 0));
      // Each run of f destroys its guard once, on either path.
      check_true("the guard is destroyed once per run", destroyed - before == 2);
      if (x > 0) {
        check_close("reverse f'(x)", g, logs_derivative(x), 1e-12);
        check_close("forward f'(x)", t, logs_derivative(x), 1e-12);
      }
    }
  return check_exit();
}
