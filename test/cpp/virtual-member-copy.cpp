// A class with virtual functions whose constructor copies a member struct
// of doubles (`Spring(Vec3 a, double k) : anchor(a), k(k)`): a memcpy of
// the Vec3 into the object, whose first eight bytes are the vtable
// pointer. The types of the whole object's accesses (a pointer and
// doubles) made reverse mode refuse the copy ("holding both pointers and
// floats"); the accesses at other known offsets of the object are no
// evidence of what the copied bytes hold (reverse/memtypes.c).
// RUN: %check-c %s %t -std=c++17
#include <cmath>
#include <initializer_list>
#include <memory>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

struct Vec3 {
  double x, y, z;
  Vec3 operator-(const Vec3 &o) const { return {x - o.x, y - o.y, z - o.z}; }
  double dot(const Vec3 &o) const { return x * o.x + y * o.y + z * o.z; }
};

struct Potential {
  virtual ~Potential() = default;
  virtual double at(const Vec3 &p) const = 0;
};

struct Spring : Potential {
  Vec3 anchor;
  double k;
  Spring(Vec3 a, double k) : anchor(a), k(k) {}
  double at(const Vec3 &p) const override {
    Vec3 d = p - anchor;
    return 0.5 * k * d.dot(d);
  }
};

// the anchor and the stiffness both depend on x; the object lives on the
// heap (a unique_ptr) and on the stack
static double energy(double x) {
  std::unique_ptr<Potential> s = std::make_unique<Spring>(Vec3{x, 1.0, 2.0 * x}, x * x);
  Spring local(Vec3{0.5, x, 0.0}, 3.0);
  Vec3 p{1.0, 0.5, 0.25};
  return s->at(p) + local.at(p);
}

int main() {
  for (double x : {0.3, 1.2})
    check_both_modes(energy, x, 1e-6);
  // E = x^2/2 ((1-x)^2 + 1/4 + (1/4-2x)^2) + 3/2 (1/4 + (1/2-x)^2 + 1/16)
  double x = 0.7, a = 1 - x, c = 0.25 - 2 * x, b = 0.5 - x;
  double want = x * (a * a + 0.25 + c * c) + 0.5 * x * x * (-2 * a - 4 * c) - 3 * b;
  check_close("energy'(0.7)", __enzyme_autodiff((void *)energy, x), want, 1e-12);
  return check_exit();
}
