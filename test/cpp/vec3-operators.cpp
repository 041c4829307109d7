// A small vector class with overloaded operators (+, -, scalar *, dot, a
// cross product and a norm), passed and returned by value inside the
// differentiated function: the energy of a spring between two points, with
// the points duplicated as arrays of Vec3 (reverse: their gradients; forward:
// the dot-product test against reverse mode), and a scalar stiffness active.
// RUN: %check-c %s %t -std=c++17
#include <cmath>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

struct Vec3 {
  double x, y, z;
  Vec3 operator+(const Vec3 &o) const { return {x + o.x, y + o.y, z + o.z}; }
  Vec3 operator-(const Vec3 &o) const { return {x - o.x, y - o.y, z - o.z}; }
  Vec3 &operator+=(const Vec3 &o) {
    x += o.x, y += o.y, z += o.z;
    return *this;
  }
  double norm() const { return std::sqrt(dot(*this)); }
  double dot(const Vec3 &o) const { return x * o.x + y * o.y + z * o.z; }
};
static Vec3 operator*(double s, const Vec3 &v) { return {s * v.x, s * v.y, s * v.z}; }
static double dot(const Vec3 &a, const Vec3 &b) { return a.dot(b); }
static Vec3 cross(const Vec3 &a, const Vec3 &b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

// k/2 (|b - a| - 1)^2 + |a x b|^2 / 4 + (centroid . centroid), over n pairs
static double energy(const Vec3 *a, const Vec3 *b, int n, double k) {
  double e = 0;
  Vec3 centroid = {0, 0, 0};
  for (int i = 0; i < n; i++) {
    double stretch = (b[i] - a[i]).norm() - 1;
    Vec3 c = cross(a[i], b[i]);
    e += k / 2 * stretch * stretch + dot(c, c) / 4;
    centroid += (0.5 / n) * (a[i] + b[i]);
  }
  return e + dot(centroid, centroid);
}

int main() {
  const int n = 3;
  Vec3 a[n] = {{0.1, 0.2, 0.3}, {-1.0, 0.5, 2.0}, {0.7, -0.4, 0.0}};
  Vec3 b[n] = {{1.1, 0.0, 0.5}, {0.0, 1.5, 1.0}, {-0.3, 0.6, 1.2}};
  Vec3 da[n] = {}, db[n] = {};
  double k = 2.5;
  double dk = __enzyme_autodiff((void *)energy, enzyme_dup, a, da, enzyme_dup, b, db, enzyme_const, n,
                                enzyme_out, k);
  double want_dk = 0;
  for (int i = 0; i < n; i++) {
    double s = (b[i] - a[i]).norm() - 1;
    want_dk += s * s / 2;
  }
  check_close("d energy / d k", dk, want_dk, 1e-12);

  // Central differences for each coordinate of a and b
  for (int i = 0; i < n; i++)
    for (int c = 0; c < 3; c++) {
      for (int which = 0; which < 2; which++) {
        Vec3 *p = which ? b : a;
        double *coord = &p[i].x + c, keep = *coord, h = 1e-6;
        *coord = keep + h;
        double up = energy(a, b, n, k);
        *coord = keep - h;
        double down = energy(a, b, n, k);
        *coord = keep;
        double got = which ? (&db[i].x)[c] : (&da[i].x)[c];
        check_close("gradient against central differences", got, (up - down) / (2 * h), 1e-6);
      }
    }

  // Forward mode: J u == grad . u
  Vec3 ua[n] = {{1, 0, -1}, {0.5, 0.5, 0.5}, {0, 2, 0}}, ub[n] = {{0, 1, 0}, {-1, 0, 1}, {0.25, 0, 0}};
  double t = __enzyme_fwddiff((void *)energy, enzyme_dup, a, ua, enzyme_dup, b, ub, enzyme_const, n,
                              enzyme_dup, k, 0.5);
  double dot_u = 0.5 * dk;
  for (int i = 0; i < n; i++)
    dot_u += dot(da[i], ua[i]) + dot(db[i], ub[i]);
  check_close("forward . u == reverse . u", t, dot_u, 1e-12);
  return check_exit();
}
