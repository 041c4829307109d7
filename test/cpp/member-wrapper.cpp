// A member function differentiated through a static wrapper: the object is
// the first argument, duplicated (its data members get gradients in reverse
// mode and carry tangents in forward mode) or Const, and the member calls
// another member and a virtual one. Reverse and forward mode of the same
// wrapper agree by the dot-product test, and match the analytic gradient.
// RUN: %check-c %s %t -std=c++17
#include <cmath>
#include <initializer_list>

#include "check.h"

extern "C" int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

class Oscillator {
public:
  Oscillator(double amplitude, double rate, double phase) : a(amplitude), w(rate), p(phase) {}
  virtual ~Oscillator() = default;

  // a sin(w t + p) damped by the subclass's envelope
  double at(double t) const { return a * std::sin(angle(t)) * envelope(t); }
  static double at_wrapper(const Oscillator *self, double t) { return self->at(t); }

  double a, w, p;

protected:
  double angle(double t) const { return w * t + p; }
  virtual double envelope(double) const { return 1.0; }
};

class Damped : public Oscillator {
public:
  Damped(double a, double w, double p, double d) : Oscillator(a, w, p), d(d) {}
  double d;

private:
  double envelope(double t) const override { return std::exp(-d * t); }
};

int main() {
  Damped osc(1.5, 2.0, 0.25, 0.3);
  for (double t : {0.1, 0.9, 2.3}) {
    double e = std::exp(-osc.d * t), s = std::sin(osc.w * t + osc.p), c = std::cos(osc.w * t + osc.p);
    // Const object, active time
    double dt = __enzyme_autodiff((void *)Oscillator::at_wrapper, enzyme_const, (const Oscillator *)&osc,
                                  enzyme_out, t);
    double want_dt = osc.a * e * (osc.w * c - osc.d * s);
    check_close("d/dt, reverse", dt, want_dt, 1e-12);
    check_close("d/dt, forward", __enzyme_fwddiff((void *)Oscillator::at_wrapper, enzyme_const,
                                                  (const Oscillator *)&osc, enzyme_dup, t, 1.0),
                want_dt, 1e-12);

    // Duplicated object: gradients of the members (the shadow object is a
    // copy whose members are then zeroed, so its vtable pointer is valid)
    Damped shadow = osc;
    shadow.a = shadow.w = shadow.p = shadow.d = 0;
    __enzyme_autodiff((void *)Oscillator::at_wrapper, enzyme_dup, (const Oscillator *)&osc,
                      (Oscillator *)&shadow, enzyme_const, t);
    check_close("d/da", shadow.a, s * e, 1e-12);
    check_close("d/dw", shadow.w, osc.a * c * t * e, 1e-12);
    check_close("d/dp", shadow.p, osc.a * c * e, 1e-12);
    check_close("d/dd", shadow.d, -t * osc.a * s * e, 1e-12);

    // Forward mode with a direction in the members: the dot product
    Damped u = osc;
    u.a = 0.5, u.w = -1.0, u.p = 2.0, u.d = 0.25;
    double f = __enzyme_fwddiff((void *)Oscillator::at_wrapper, enzyme_dup, (const Oscillator *)&osc,
                                (Oscillator *)&u, enzyme_const, t);
    double dot = shadow.a * u.a + shadow.w * u.w + shadow.p * u.p + shadow.d * u.d;
    check_close("forward . u == reverse . u", f, dot, 1e-12);
  }
  return check_exit();
}
