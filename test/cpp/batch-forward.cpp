// Batch forward mode from C++, compiled with kinase-c++ (the C++ driver) at
// -O0 and -O2: a templated entry point returning std::array of the lanes'
// tangents, a class whose method reads std::vector members (the object
// passed with one shadow object per lane), a lambda called inside, and
// enzyme_dupv over a std::vector holding the lanes one after the other.
// Each lane against the analytic directional derivative.
// RUN: %kinase-cxx -O0 -std=c++17 %testinc %s -o %t.O0 && %t.O0
// RUN: %kinase-cxx -O2 -std=c++17 %testinc %s -o %t.O2 && %t.O2
#include <array>
#include <cmath>
#include <vector>

#include "check.h"

extern "C" int enzyme_width, enzyme_dup, enzyme_dupv, enzyme_const;
template <typename R, typename... A> R __enzyme_fwddiff(void *, A...);

struct Spring {
  std::vector<double> k; // stiffness per segment
  double rest;
  // sum_i k_i/2 (x_{i+1} - x_i - rest)^2 + log(1 + x_0^2)
  double energy(const double *x, int n) const {
    auto stretch = [&](int i) { return x[i + 1] - x[i] - rest; };
    double e = std::log(1 + x[0] * x[0]);
    for (int i = 0; i + 1 < n; i++)
      e += 0.5 * k[i] * stretch(i) * stretch(i);
    return e;
  }
};

static double energy_of(const Spring *s, const double *x, int n) { return s->energy(x, n); }

template <typename T> T cubic(T x, T a) { return a * x * x * x; }

int main() {
  constexpr int N = 4, W = 3;
  Spring s{{2.0, 0.5, 3.0}, 0.25};
  std::vector<double> x{0.1, 0.6, 0.8, 1.5};
  // Lane k moves x in direction e_k, and the stiffness k_k of its shadow spring.
  std::array<Spring, W> ds{Spring{{1, 0, 0}, 0}, Spring{{0, 1, 0}, 0}, Spring{{0, 0, 1}, 0}};
  std::vector<double> dx(W * N, 0.0);
  for (int k = 0; k < W; k++)
    dx[k * N + k] = 1;

  auto t = __enzyme_fwddiff<std::array<double, W>>((void *)energy_of, enzyme_width, W, enzyme_dup, &s, &ds[0],
                                                    &ds[1], &ds[2], enzyme_dupv, N * sizeof(double), x.data(),
                                                    dx.data(), enzyme_const, N);
  for (int k = 0; k < W; k++) {
    // d/dx_k of the energy, plus d/dk_k.
    double d = k == 0 ? 2 * x[0] / (1 + x[0] * x[0]) : 0;
    if (k + 1 < N)
      d -= s.k[k] * (x[k + 1] - x[k] - s.rest);
    if (k > 0)
      d += s.k[k - 1] * (x[k] - x[k - 1] - s.rest);
    double str = x[k + 1] - x[k] - s.rest;
    d += 0.5 * str * str;
    check_close("spring lane", t[k], d, 1e-13);
  }

  auto c = __enzyme_fwddiff<std::array<float, 2>>((void *)cubic<float>, enzyme_width, 2, 2.0f, 1.0f, 0.0f, 3.0f,
                                                  0.0f, 1.0f);
  check_close("template: d/dx", c[0], 3 * 3.0 * 4.0, 1e-6);
  check_close("template: d/da", c[1], 8.0, 1e-6);
  return check_exit();
}
