// RUN: %check-c %s %t
// Doubles moved through integer-typed storage: memcpy into an unsigned long
// long, passed by value to a noinline function that stores it as a double
// into heap memory typed as an integer array (next to a genuine integer);
// a union written through its double member and read back through the same
// member after an integer field is touched; and a union used to reinterpret
// a double as its bits and back. Reverse and forward mode.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) unsigned long long *store_bits(unsigned long long bits, unsigned long long tag)
{
  unsigned long long *data = malloc(2 * sizeof(unsigned long long));
  double d;
  memcpy(&d, &bits, sizeof d);
  *(double *)data = d;
  data[1] = tag;
  return data;
}

double through_ints(double x)
{
  unsigned long long bits;
  memcpy(&bits, &x, sizeof bits);
  unsigned long long *data = store_bits(bits, 3);
  double r = ((double *)data)[0] * (double)data[1];
  free(data);
  return r;
}

union slot {
  double d;
  int64_t i;
  struct {
    int32_t lo, hi;
  } w;
};

double through_union(double x)
{
  union slot s;
  s.d = x * x;
  double y = s.d;
  union slot t;
  t.i = 0;
  t.d = y + x;
  return t.d * 2.0;
}

double roundtrip(double x)
{
  union slot s;
  s.d = sin(x);
  int64_t b = s.i;
  union slot t;
  t.i = b;
  return t.d * x;
}

int main(void)
{
  for (int i = -6; i <= 6; i++) {
    double x = i / 4.0 + 0.1;
    char what[64];
    snprintf(what, sizeof what, "through integer storage at %g, reverse", x);
    check_close(what, __enzyme_autodiff((void *)through_ints, x), 3.0, 1e-14);
    snprintf(what, sizeof what, "through integer storage at %g, forward", x);
    check_close(what, __enzyme_fwddiff((void *)through_ints, x, 1.0), 3.0, 1e-14);
  }
  double x = 0.8;
  check_close("union, reverse", __enzyme_autodiff((void *)through_union, x), 2 * (2 * x + 1), 1e-14);
  check_close("union, forward", __enzyme_fwddiff((void *)through_union, x, 1.0), 2 * (2 * x + 1), 1e-14);
  check_close("union bit round trip, reverse", __enzyme_autodiff((void *)roundtrip, x), cos(x) * x + sin(x), 1e-14);
  check_close("union bit round trip, forward", __enzyme_fwddiff((void *)roundtrip, x, 1.0), cos(x) * x + sin(x),
              1e-14);
  return check_exit();
}
