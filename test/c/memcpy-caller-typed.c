// A generic swap through void pointers and memcpy (qsort-style code),
// called from the function being differentiated: the callee's own code says
// nothing of what the bytes are, its caller passes a `double *`, whose load
// clang's TBAA marks "p1 double" from -O1 on: the copies move doubles'
// adjoints (analysis/copytypes.c). The copies into and out of `tmp`, an
// array of chars, take the caller's type too: its type is no evidence (it
// was, of no floats: x[0]'s adjoint, which goes through tmp, was dropped).
// At -O0, where there is no TBAA, the caller indexes the pointers it loads
// from its variable's slot as doubles, which says the same; where it only
// passes them on, it is an error (test/errors/copy-bytes-generic.c).
//
//   f(x) = x[2] x[1]^2 + 3 x[0] after swapping x[0] and x[2]:
//   df/dx = (3, 2 x[2] x[1], x[1]^2)
// RUN: %kinase-cc -O2 %testinc %s -o %t.kinase-cc && %t.kinase-cc
// RUN: %kinase-cc -O0 %testinc %s -o %t.O0 && %t.O0
// RUN: %kinase-cc -O1 %testinc %s -o %t.O1 && %t.O1
// RUN: %clang-plugin -O2 %testinc %s -o %t.plugin -lm && %t.plugin
#include <kinase.h>
#include <string.h>

#include "check.h"

__attribute__((noinline)) static void swap(void *base, size_t i, size_t j, size_t size) {
  char tmp[64];
  memcpy(tmp, (char *)base + i * size, size);
  memcpy((char *)base + i * size, (char *)base + j * size, size);
  memcpy((char *)base + j * size, tmp, size);
}

static double f(double *x) {
  swap(x, 0, 2, sizeof *x);
  return x[0] * x[1] * x[1] + 3 * x[2];
}

int main(void) {
  double x[3] = {2, 3, 5}, dx[3] = {0};
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
  check_close("d/dx[0]", dx[0], 3, 0);
  check_close("d/dx[1]", dx[1], 2 * 5 * 3, 1e-15);
  check_close("d/dx[2]", dx[2], 3 * 3, 1e-15);
  return check_exit();
}
