// operator new (std::nothrow), as std::get_temporary_buffer calls it, and
// the aligned operator new of an alignas(32) class, with their deletes:
// allocations whose memory the shadow mirrors, like plain new. Without
// their rows the memory had no shadow ("memory returned by 'operator
// new(unsigned long, std::align_val_t)', which has no shadow").
// RUN: %check-c %s %t -std=c++17
#include <cmath>
#include <initializer_list>
#include <new>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

struct alignas(32) Packet {
  double v[4];
};

static double f(double x) {
  double *p = new (std::nothrow) double[5];
  Packet *q = new Packet{{x, 2 * x, x * x, 1}};
  Packet *r = new (std::nothrow) Packet{{1, x, 1, x}};
  for (int i = 0; i < 5; i++)
    p[i] = std::sin(x * i);
  double s = 0;
  for (int i = 0; i < 5; i++)
    s += p[i] * q->v[i % 4] * r->v[i % 4];
  delete[] p;
  delete q;
  delete r;
  return s;
}

int main() {
  for (double x : {0.3, 0.7})
    check_both_modes(f, x, 1e-6);
  return check_exit();
}
