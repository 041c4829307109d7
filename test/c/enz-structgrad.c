// RUN: %check-c %s %t
// Several active scalar arguments in reverse mode: the gradients come back
// as a structure, declared as the return type of the entry point, as
// Enzyme's tests do (each prototype under its own name starting with
// __enzyme_autodiff). Two doubles (returned in registers), three and four
// doubles (returned through memory), two floats (packed into one register),
// a mix of float and double, and an active scalar next to a dup pointer.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out;

typedef struct {
  double dx, dy;
} G2;
typedef struct {
  double dx, dy, dz;
} G3;
typedef struct {
  double d[4];
} G4;
typedef struct {
  float dx, dy;
} F2;
typedef struct {
  float df;
  double dd;
} FD;

extern G2 __enzyme_autodiff(void *, ...);
extern G3 __enzyme_autodiff3(void *, ...);
extern G4 __enzyme_autodiff4(void *, ...);
extern F2 __enzyme_autodiff_f2(void *, ...);
extern FD __enzyme_autodiff_fd(void *, ...);
extern double __enzyme_autodiff_1(void *, ...);

double mul(double x, double y) { return x * y + sin(x); }
double three(double x, double y, double z) { return x * y * z + exp(z); }
double four(double a, double b, double c, double d) { return a * b - c * d + a * a * d; }
float fpair(float x, float y) { return x * x * y; }
double mixed(float f, double d) { return (double)f * d * d; }
double with_ptr(double s, const double *v, int n)
{
  double r = 0;
  for (int i = 0; i < n; i++)
    r += s * v[i] * v[i];
  return r;
}

G2 dmul(double x, double y) { return __enzyme_autodiff((void *)mul, x, y); }

int main(void)
{
  double x = 1.25, y = -0.5, z = 0.75;
  check_close("G2 dx", dmul(x, y).dx, y + cos(x), 1e-14);
  check_close("G2 dy", dmul(x, y).dy, x, 1e-14);

  G3 g3 = __enzyme_autodiff3((void *)three, x, y, z);
  check_close("G3 dx", g3.dx, y * z, 1e-14);
  check_close("G3 dy", g3.dy, x * z, 1e-14);
  check_close("G3 dz", g3.dz, x * y + exp(z), 1e-14);

  G3 g3m = __enzyme_autodiff3((void *)three, enzyme_out, x, enzyme_out, y, enzyme_out, z);
  check_close("G3 marked dz", g3m.dz, x * y + exp(z), 1e-14);

  G2 g2c = __enzyme_autodiff((void *)three, x, enzyme_const, y, z);
  check_close("G2 with a const in the middle: dx", g2c.dx, y * z, 1e-14);
  check_close("G2 with a const in the middle: dz", g2c.dy, x * y + exp(z), 1e-14);

  double a = 0.5, b = 2.0, c = -1.0, d = 3.0;
  G4 g4 = __enzyme_autodiff4((void *)four, a, b, c, d);
  check_close("G4 da", g4.d[0], b + 2 * a * d, 1e-14);
  check_close("G4 db", g4.d[1], a, 1e-14);
  check_close("G4 dc", g4.d[2], -d, 1e-14);
  check_close("G4 dd", g4.d[3], -c + a * a, 1e-14);

  F2 f2 = __enzyme_autodiff_f2((void *)fpair, 1.5f, 2.0f);
  check_close("F2 dx", f2.dx, 2 * 1.5 * 2.0, 1e-6);
  check_close("F2 dy", f2.dy, 1.5 * 1.5, 1e-6);

  FD fd = __enzyme_autodiff_fd((void *)mixed, 0.5f, 3.0);
  check_close("float-double df", fd.df, 9.0, 1e-6);
  check_close("float-double dd", fd.dd, 2 * 0.5 * 3.0, 1e-14);

  double v[3] = {1.0, 2.0, -1.0}, dv[3] = {0};
  double ds = __enzyme_autodiff_1((void *)with_ptr, enzyme_out, 2.0, enzyme_dup, v, dv, enzyme_const, 3);
  check_close("scalar next to dup: ds", ds, 6.0, 1e-14);
  for (int i = 0; i < 3; i++)
    check_close("scalar next to dup: dv", dv[i], 2.0 * 2.0 * v[i], 1e-14);
  return check_exit();
}
