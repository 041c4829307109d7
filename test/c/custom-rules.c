// RUN: %check-c %s %t
// Enzyme's registration globals: a custom gradient (augmented forward and
// reverse pass), a custom forward derivative, __enzyme_function_like and
// __enzyme_inactivefn. The custom rules are deliberately not the true
// derivatives, so the checks can tell that they were used.
#include "check.h"
#include <math.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void cube_into(const double *x, double *y) { *y = *x * *x * *x; }
static int augmented, reversed;
void *cube_aug(const double *x, const double *dx, double *y, double *dy) {
  (void)dx, (void)dy;
  augmented++;
  *y = *x * *x * *x;
  return NULL;
}
void cube_rev(const double *x, double *dx, const double *y, double *dy, void *tape) {
  (void)y, (void)tape;
  reversed++;
  *dx += 100.0 * *x * *dy;
  *dy = 0;
}
void *__enzyme_register_gradient_cube[] = {(void *)cube_into, (void *)cube_aug, (void *)cube_rev};
double use_cube(double x) {
  double y;
  cube_into(&x, &y);
  return y * 2.0;
}

/* A scalar function: the reverse pass gets the result's adjoint and the
 * tape, and returns the argument's adjoint. */
__attribute__((noinline)) double scale(double x) { return 3.0 * x; }
typedef struct {
  void *tape;
  double result;
} ScaleAug;
ScaleAug scale_aug(double x) { return (ScaleAug){0, 3.0 * x}; }
double scale_rev(double x, double dret, void *tape) { (void)x, (void)tape; return 5.0 * dret; }
void *__enzyme_register_gradient_scale[] = {(void *)scale, (void *)scale_aug, (void *)scale_rev};
double use_scale(double x) { return scale(x) * x; }

__attribute__((noinline)) double twice(double x) { return 2.0 * x; }
double twice_tangent(double x, double dx) { (void)x; return 7.0 * dx; }
void *__enzyme_register_derivative_twice[] = {(void *)twice, (void *)twice_tangent};
double use_twice(double x) { return twice(x) + x; }

double log1p_like(double a) { return 2 * a; }
void *__enzyme_function_like[2] = {(void *)log1p_like, "log1p"};
double use_like(double a) { return log1p_like(a); }

double noisy(double a) { return 3 * a; }
void *__enzyme_inactivefn[] = {(void *)noisy};
double use_noisy(double a) { return noisy(a) + a * a; }

int main(void) {
  check_close("custom gradient", __enzyme_autodiff((void *)use_cube, 3.0), 600.0, 1e-12);
  check_close("custom augmented pass ran once", augmented, 1, 0);
  check_close("custom reverse pass ran once", reversed, 1, 0);
  /* d/dx scale(x) * x with scale' := 5: 5 * x + scale(x) = 5 * 2 + 6. */
  check_close("scalar custom gradient", __enzyme_autodiff((void *)use_scale, 2.0), 16.0, 1e-12);
  check_close("custom tangent", __enzyme_fwddiff((void *)use_twice, 1.0, 1.0), 8.0, 1e-12);
  check_close("function like log1p, reverse", __enzyme_autodiff((void *)use_like, 2.0), 1 / 3.0, 1e-12);
  check_close("function like log1p, forward", __enzyme_fwddiff((void *)use_like, 2.0, 1.0), 1 / 3.0, 1e-12);
  check_close("inactive function, reverse", __enzyme_autodiff((void *)use_noisy, 2.0), 4.0, 1e-12);
  check_close("inactive function, forward", __enzyme_fwddiff((void *)use_noisy, 2.0, 1.0), 4.0, 1e-12);
  return check_exit();
}
