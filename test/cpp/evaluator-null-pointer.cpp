// A constructor that stores a data pointer into an object, called by one
// constructor with a pointer that has a shadow and by a default constructor
// with a null pointer: both calls store a pointer where a shadow is expected,
// and null's shadow is null, so both get the pointer parameter with a shadow
// (before: the default constructor's call, Const, stopped the derivative:
// "a pointer here may point either to memory with a shadow ... or to memory
// without one"). Eigen's evaluators of a plain matrix are built this way.
// Both modes, against the analytic gradient.
// RUN: %check-c %s %t -std=c++17
// RUN: %check-c %s %t -std=c++17 -fno-exceptions
#include "check.h"

extern "C" int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

struct Data {
  const double *ptr;
  long stride;
  __attribute__((noinline)) Data(const double *p, long s) : ptr(p), stride(s) {}
};

struct Reader {
  Data d;
  __attribute__((noinline)) Reader() : d(nullptr, 1) {}
  __attribute__((noinline)) explicit Reader(const double *p) : d(p, 1) {}
  double at(long i) const { return d.ptr[i * d.stride]; }
};

/* Built by one constructor that gets x: the object, so its empty member
 * too, has a shadow. */
struct Both {
  Reader empty; /* never read through */
  Reader r;
  __attribute__((noinline)) explicit Both(const double *x) : empty(), r(x) {}
};

__attribute__((noinline)) static double sum_squares(const double *x, long n) {
  Both b(x);
  double s = 0;
  for (long i = 0; i < n; i++)
    s += b.r.at(i) * b.r.at(i);
  return s + (b.empty.d.ptr ? 1.0 : 0.0);
}

int main() {
  double x[3] = {1.0, -2.0, 0.5}, dx[3] = {0, 0, 0};
  __enzyme_autodiff((void *)sum_squares, enzyme_dup, x, dx, enzyme_const, 3L);
  for (int i = 0; i < 3; i++)
    check_close("reverse: d/dx_i sum x^2", dx[i], 2 * x[i], 1e-14);
  double tx[3] = {1.0, 1.0, 1.0};
  double t = __enzyme_fwddiff((void *)sum_squares, enzyme_dup, x, tx, enzyme_const, 3L);
  check_close("forward: tangent along (1,1,1)", t, 2 * (x[0] + x[1] + x[2]), 1e-14);
  return check_exit();
}
