// RUN: %check-c %s %t
// __enzyme_batch: the function called for W lanes of arguments, its W
// results returned as the caller declares them. enzyme_vector (and an
// unmarked argument) takes one value per lane, enzyme_scalar one for every
// lane, enzyme_buffer, stride, p the lanes of an array, p + k * stride bytes
// for lane k (here each lane writes its own output row).
#include <math.h>
#include "check.h"

extern int enzyme_width, enzyme_vector, enzyme_scalar, enzyme_buffer;
typedef struct { double r[4]; } D4;
typedef struct { float r[2]; } F2;
D4 __enzyme_batch(void *, ...);
F2 __enzyme_batch_f2(void *, ...);
void __enzyme_batch_void(void *, ...);

double relu_scaled(double x, double a) { return x > 0 ? a * x : 0.01 * x; }
float hyp(float x, float y) { return sqrtf(x * x + y * y); }

enum { N = 3 };
void axpy(double a, const double *x, double *y) {
  for (int i = 0; i < N; i++)
    y[i] += a * x[i];
}

int main(void) {
  double xs[4] = {-2, 0.5, 3, -0.25};
  D4 r = __enzyme_batch((void *)relu_scaled, enzyme_width, 4, enzyme_vector, xs[0], xs[1], xs[2], xs[3],
                        enzyme_scalar, 1.5);
  for (int k = 0; k < 4; k++)
    check_close("vector x, scalar a", r.r[k], relu_scaled(xs[k], 1.5), 1e-15);

  D4 s = __enzyme_batch((void *)relu_scaled, enzyme_width, 4, enzyme_scalar, 2.0, 1.0, 2.0, 3.0, 4.0);
  for (int k = 0; k < 4; k++)
    check_close("scalar x, unmarked a", s.r[k], 2.0 * (k + 1), 1e-15);

  F2 h = __enzyme_batch_f2((void *)hyp, enzyme_width, 2, 3.0f, 5.0f, 4.0f, 12.0f);
  check_close("floats: lane 0", h.r[0], 5, 1e-6);
  check_close("floats: lane 1", h.r[1], 13, 1e-6);

  double x[N] = {1, 2, 3}, y[2][N + 1] = {{1, 1, 1, -5}, {0, 0, 0, -5}};
  __enzyme_batch_void((void *)axpy, enzyme_width, 2, enzyme_vector, 2.0, -1.0, enzyme_scalar, x, enzyme_buffer,
                      sizeof y[0], y);
  for (int i = 0; i < N; i++) {
    check_close("buffer: lane 0", y[0][i], 1 + 2 * x[i], 1e-15);
    check_close("buffer: lane 1", y[1][i], -x[i], 1e-15);
  }
  check_true("buffer: the element after each lane is untouched", y[0][N] == -5 && y[1][N] == -5);
  return check_exit();
}
