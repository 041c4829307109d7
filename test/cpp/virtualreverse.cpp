// __enzyme_virtualreverse gives the shadow of a vtable or function pointer,
// as Enzyme's C++ programs use it: the shadow object of a class with
// virtual functions gets one, and the derivative goes through the virtual
// call (Kinase resolves it from the primal object's vtable).
// RUN: %check-c %s %t
#include "check.h"

int enzyme_dup, enzyme_const, enzyme_out;
template <typename... A> double __enzyme_autodiff(void *, A...);
template <typename T> T __enzyme_virtualreverse(T);

struct Shape {
  virtual double area(double scale) = 0;
  double size;
};
struct Square : Shape {
  double area(double scale) override { return scale * size * size; }
};
struct Circle : Shape {
  double area(double scale) override { return 3.0 * scale * size * size; }
};

static double area(Shape &s, double scale) { return s.area(scale); }

static void check_shape(const char *what, Shape *s, Shape *ds, double k) {
  s->size = 2.0;
  *(void **)ds = __enzyme_virtualreverse(*(void **)ds);
  ds->size = 0.0;
  double dscale = __enzyme_autodiff((void *)area, enzyme_dup, s, ds, 5.0);
  check_close(what, dscale, k * 4.0, 1e-15);
  check_close(what, ds->size, k * 5.0 * 4.0, 1e-15);
}

int main() {
  Square sq, dsq;
  Circle ci, dci;
  check_shape("square", &sq, &dsq, 1.0);
  check_shape("circle", &ci, &dci, 3.0);
  double (*fp)(double) = __enzyme_virtualreverse<double (*)(double)>(nullptr);
  check_true("a function pointer's shadow", fp == nullptr);
  return check_exit();
}
