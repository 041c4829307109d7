// std::sort of a std::vector of structs holding doubles beside an int, with
// a lambda comparator: the insertion sort moves an element whole into a
// local (`auto val = std::move(*i)`), a memcpy of doubles and an int
// together at -O0, which a copy's reverse cannot move as one float type.
// Such a copy of a struct declared as such is split into one load and
// store per field before differentiating (its type from the local or
// by-value parameter it is copied into or out of, from what the iterator's
// operator* gives elsewhere, or from clang's !tbaa.struct); the doubles'
// adjoints then go back to where each element was before the sort.
// RUN: %check-c %s %t -std=c++17
#include <algorithm>
#include <cmath>
#include <vector>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

struct Particle {
  double x, v;
  int id;
};

// sorts by position, then weighs each velocity squared by its rank
static double energy(std::vector<Particle> *ps) {
  std::sort(ps->begin(), ps->end(), [](const Particle &a, const Particle &b) { return a.x < b.x; });
  double e = 0;
  for (size_t i = 0; i < ps->size(); i++)
    e += double(i + 1) * (*ps)[i].v * (*ps)[i].v + std::sin((*ps)[i].x);
  return e;
}

int main() {
  std::vector<Particle> ps = {{2.0, 1.0, 0}, {-1.0, 0.5, 1}, {0.5, -2.0, 2}, {3.0, 0.25, 3}};
  std::vector<Particle> dps(ps.size(), Particle{0, 0, 0});
  __enzyme_autodiff((void *)energy, enzyme_dup, &ps, &dps);
  // sorted: id 1 (x -1), id 2 (x 0.5), id 0 (x 2), id 3 (x 3); the
  // gradient is the input's, element `id` where it was before the sort
  const int order[4] = {1, 2, 0, 3};
  for (int rank = 0; rank < 4; rank++) {
    const Particle &p = ps[rank], &dp = dps[p.id];
    check_true("sorted", p.id == order[rank]);
    check_close("dv", dp.v, 2.0 * (rank + 1) * p.v, 1e-12);
    check_close("dx", dp.x, std::cos(p.x), 1e-12);
  }
  // forward mode, on the sorted vector (which stays as it is): velocities'
  // tangents 1
  std::vector<Particle> tangent(ps.size(), Particle{0, 1, 0});
  double t = __enzyme_fwddiff((void *)energy, enzyme_dup, &ps, &tangent);
  double want = 0;
  for (int rank = 0; rank < 4; rank++)
    want += 2.0 * (rank + 1) * ps[rank].v;
  check_close("forward", t, want, 1e-12);
  return check_exit();
}
