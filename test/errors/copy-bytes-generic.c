// A generic swap through void pointers and memcpy, called from the
// function being differentiated: in the callee nothing says what the bytes
// are (the char arithmetic is only addresses), and at -O0 neither does the
// caller (no TBAA on its `double *`, which it only passes on to calls;
// indexed as doubles, it would say what the bytes are:
// test/c/memcpy-caller-typed.c), so the copies' element type is
// undecidable. An error at the copy (the last, which the reverse sweep
// meets first: `tmp`, an array of chars, is raw storage, no evidence that
// no floats move), not a derivative that moves no adjoints. From -O1 the caller's pointer TBAA decides it
// (test/c/memcpy-caller-typed.c).
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>
#include <string.h>

__attribute__((noinline)) static void swap(void *base, size_t i, size_t j, size_t size) {
  char tmp[64];
  memcpy(tmp, (char *)base + i * size, size);
  memcpy((char *)base + i * size, (char *)base + j * size, size);
  // CHECK: {{.*}}copy-bytes-generic.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'swap': it copies memory (memcpy) whose element type Kinase cannot decide: it must hold floats of one type
  memcpy((char *)base + j * size, tmp, size);
}

__attribute__((noinline)) static double product(const double *x) { return x[0] * x[1] * x[1]; }

static double f(double *x) {
  swap(x, 0, 2, sizeof *x);
  return product(x);
}

void test(double *x, double *dx) { __enzyme_autodiff((void *)f, enzyme_dup, x, dx); }
