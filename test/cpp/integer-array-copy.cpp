// A copy of memory that holds only integers (std::array<long, 4> passed by
// value: a memcpy into the callee's copy) inside differentiated code moves
// no adjoints: the integers the code computes with show what the memory
// holds (before: "it copies memory (memcpy) whose element type Kinase cannot
// decide"). Eigen's tensors keep their dimensions so. Reverse mode, against
// the analytic gradient.
// RUN: %check-c %s %t -std=c++17
#include <array>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

struct Tensor {
  std::array<long, 4> dims;
  double *data;
};

__attribute__((noinline)) static long product(std::array<long, 4> d) {
  long p = 1;
  for (long v : d)
    p *= v;
  return p;
}

__attribute__((noinline)) static double total(const Tensor *t) {
  long n = product(t->dims);
  double s = 0;
  for (long i = 0; i < n; i++)
    s += t->data[i] * t->data[i] * (double)(i + 1);
  return s;
}

int main() {
  double x[6] = {1, 2, 3, 4, 5, 6}, dx[6] = {0};
  Tensor t{{1, 2, 3, 1}, x}, dt{{1, 2, 3, 1}, dx};
  __enzyme_autodiff((void *)total, enzyme_dup, &t, &dt);
  for (int i = 0; i < 6; i++)
    check_close("d/dx_i sum (i+1) x_i^2", dx[i], 2 * x[i] * (i + 1), 1e-14);
  return check_exit();
}
