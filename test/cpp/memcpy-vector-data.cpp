// std::memcpy into and out of a std::vector's buffer, inside the
// differentiated function: the buffer's addresses come from calls
// (`c.data()`, `v->data()`) and the function itself never reads it but
// through more calls (its iterators), so the copy's element type comes from
// what those calls are declared to give: a `double *` field, loaded with
// clang's pointer TBAA ("p1 double"), from -O1 up. Without it (-O0) the
// copy stays an error ("whose element type Kinase cannot decide").
// RUN: %check-c %s %t -std=c++17
#include <cmath>
#include <cstring>
#include <vector>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

#ifdef __OPTIMIZE__
// the sum of squares of a copy of the array
static double from_array(const double *v, int n) {
  std::vector<double> c(n);
  std::memcpy(c.data(), v, n * sizeof(double));
  double s = 0;
  for (double e : c)
    s += e * e;
  return s;
}

// the product of the first two elements of a copy of the vector
static double from_vector(const std::vector<double> *v) {
  std::vector<double> c(v->size());
  std::memcpy(c.data(), v->data(), v->size() * sizeof(double));
  return c[0] * std::sin(c[1]);
}
#endif

int main() {
#ifdef __OPTIMIZE__
  double a[3] = {1.0, -2.0, 0.5}, da[3] = {0, 0, 0};
  __enzyme_autodiff((void *)from_array, enzyme_dup, a, da, enzyme_const, 3);
  for (int i = 0; i < 3; i++)
    check_close("from an array", da[i], 2 * a[i], 1e-12);
  double ta[3] = {1, 1, 1};
  check_close("from an array, forward", __enzyme_fwddiff((void *)from_array, enzyme_dup, a, ta, enzyme_const, 3),
              2 * (1.0 - 2.0 + 0.5), 1e-12);

  std::vector<double> v = {1.5, 0.25, 4.0}, dv(3, 0.0);
  __enzyme_autodiff((void *)from_vector, enzyme_dup, &v, &dv);
  check_close("from a vector, d0", dv[0], std::sin(0.25), 1e-12);
  check_close("from a vector, d1", dv[1], 1.5 * std::cos(0.25), 1e-12);
  check_close("from a vector, d2", dv[2], 0, 0);
#endif
  return check_exit();
}
