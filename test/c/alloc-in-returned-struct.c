// A helper that allocates and returns the memory in a struct by value
// (`Buf make_buf(long n)` returning {malloc(...), n}; clang returns it as
// { ptr, i64 }), called with only integer arguments. Its call was taken as
// inactive, since only a helper returning a bare pointer was known to hand
// back fresh memory: the buffer had no shadow, the values written to it
// lost their derivatives, and both modes returned a wrong gradient without
// a word. A struct returned by value whose pointers are fresh memory (or
// null) counts too, at -O0 (through the return slot) and optimised (phis of
// insertvalues).
// RUN: %check-c %s %t
#include <math.h>
#include <stdlib.h>

#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef struct {
  double *p;
  long n;
} Buf;

// halves the request until malloc succeeds, as std::get_temporary_buffer does
static __attribute__((noinline)) Buf make_buf(long n) {
  while (n > 0) {
    double *p = malloc(n * sizeof(double));
    if (p)
      return (Buf){p, n};
    n /= 2;
  }
  return (Buf){NULL, 0};
}

// the pointer returned bare, chosen by a phi
static __attribute__((noinline)) double *alloc_or_null(long n) { return n > 0 ? malloc(n * sizeof(double)) : NULL; }

static double f(double x) {
  Buf b = make_buf(4);
  double *a = alloc_or_null(4);
  for (int i = 0; i < 4; i++) {
    a[i] = x * i;
    b.p[i] = sin(a[i]);
  }
  double s = 0;
  for (int i = 0; i < 4; i++)
    s += b.p[i] * a[i];
  free(a);
  free(b.p);
  return s;
}

// sum over i of i x sin(i x): derivative sum of i sin(i x) + i^2 x cos(i x)
static double df(double x) {
  double s = 0;
  for (int i = 0; i < 4; i++)
    s += i * sin(i * x) + i * i * x * cos(i * x);
  return s;
}

int main(void) {
  for (double x = 0.2; x < 1.5; x += 0.4) {
    check_close("f' reverse", __enzyme_autodiff((void *)f, x), df(x), 1e-12);
    check_close("f' forward", __enzyme_fwddiff((void *)f, x, 1.0), df(x), 1e-12);
  }
  return check_exit();
}
