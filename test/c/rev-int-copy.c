// RUN: %check-c %s %t
// Small copies that the optimiser turns into integer loads and stores: the
// adjoints must still travel with the floats they move, and pointers' shadows
// with the pointers.
#include "check.h"
#include <string.h>

void __enzyme_autodiff(void *, ...);

typedef struct { double v; } Wrapped;
typedef struct { double *data; } Handle;

static void copy_struct(Wrapped *out, const Wrapped *in) {
  *out = *in;
  out->v *= 3.0;
}

static void copy_bytes(double *out, const double *in) {
  memcpy(out, in, sizeof *out);
  out[0] *= 3.0;
}

/* The handle is copied as a whole; the copy's pointer must reach the shadow. */
static void through_handle(double *out, const Handle *h) {
  Handle local;
  memcpy(&local, h, sizeof local);
  *out = local.data[0] * local.data[1];
}

int main(void) {
  Wrapped in = {2.0}, din = {0}, out, dout = {1.0};
  __enzyme_autodiff((void *)copy_struct, &out, &dout, &in, &din);
  check_close("struct assignment", din.v, 3.0, 1e-15);
  check_close("struct assignment consumes the output shadow", dout.v, 0.0, 0);

  double x = 2.0, dx = 0, y, dy = 1.0;
  __enzyme_autodiff((void *)copy_bytes, &y, &dy, &x, &dx);
  check_close("memcpy of one double", dx, 3.0, 1e-15);

  double data[2] = {3.0, 5.0}, ddata[2] = {0, 0}, r, dr = 1.0;
  Handle h = {data}, dh = {ddata};
  __enzyme_autodiff((void *)through_handle, &r, &dr, &h, &dh);
  check_close("pointer copied as bytes, d/d data[0]", ddata[0], 5.0, 1e-15);
  check_close("pointer copied as bytes, d/d data[1]", ddata[1], 3.0, 1e-15);
  return check_exit();
}
