// RUN: %check-c %s %t
// Records holding index ranges and a data pointer, split recursively into
// heap-allocated child records that copy the parent's data pointer (so the
// children's shadows must hold the shadow data pointer). The caller's shadow
// record only has its pointer field set: its integer fields hold garbage,
// which the derivative must never use. The function returns a float while
// the entry point is declared returning double. Also a constant argument
// (enzyme_const) pointing to metadata that the function reads and then
// overwrites.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
void __enzyme_autodiff_v(void *, ...);

typedef struct {
  long long lo, hi;
  float *data;
} frame;

float range_sum(frame *f)
{
  if (f->hi - f->lo > 1) {
    frame *left = malloc(sizeof(frame));
    frame *right = malloc(sizeof(frame));
    long long mid = f->lo + (f->hi - f->lo) / 2;
    left->data = f->data;
    left->lo = f->lo;
    left->hi = mid;
    right->data = f->data;
    right->lo = mid;
    right->hi = f->hi;
    float a = range_sum(left);
    float b = range_sum(right);
    free(left);
    free(right);
    return a + b * 2.0f;
  }
  return f->data[f->lo] * f->data[f->lo];
}

float range_sum_top(frame *f) { return range_sum(f); }

/* weight of leaf k: 2^(number of times it went right) */
static double leaf_weight(long long lo, long long hi, long long k)
{
  if (hi - lo <= 1)
    return 1.0;
  long long mid = lo + (hi - lo) / 2;
  return k < mid ? leaf_weight(lo, mid, k) : 2.0 * leaf_weight(mid, hi, k);
}

void scale_segment(double *__restrict a, long **meta)
{
  long *seg = meta[0];
  long n = seg[1] - seg[0];
  for (long i = 0; i < n; i++)
    a[i] *= 3.0 + i;
  meta[0] = 0;
}

void scale_then_clear(double *__restrict a, long **meta)
{
  scale_segment(a, meta);
  a[0] = 0;
}

int main(void)
{
  enum { N = 7 };
  char what[64];
  float *data = malloc(sizeof(float) * N), *ddata = malloc(sizeof(float) * N);
  for (int i = 0; i < N; i++) {
    data[i] = 0.5f + 0.25f * i;
    ddata[i] = 0.0f;
  }
  frame *f = malloc(sizeof(frame)), *df = malloc(sizeof(frame));
  f->lo = 0;
  f->hi = N;
  f->data = data;
  df->lo = -123456789;
  df->hi = 987654321;
  df->data = ddata;
  __enzyme_autodiff((void *)range_sum_top, f, df);
  for (int i = 0; i < N; i++) {
    snprintf(what, sizeof what, "recursive frames ddata[%d]", i);
    check_close(what, ddata[i], 2.0 * data[i] * leaf_weight(0, N, i), 1e-6);
  }

  long meta[2] = {196, 200};
  long *pmeta = meta;
  double a[4] = {1, 7, 2, 5}, da[4] = {1, 1, 1, 1};
  __enzyme_autodiff_v((void *)scale_then_clear, enzyme_dup, a, da, enzyme_const, &pmeta);
  check_close("constant metadata: da[0] (cleared)", da[0], 0.0, 0.0);
  for (int i = 1; i < 4; i++) {
    snprintf(what, sizeof what, "constant metadata: da[%d]", i);
    check_close(what, da[i], 3.0 + i, 1e-14);
  }
  check_true("the constant pointer was cleared", pmeta == 0);
  return check_exit();
}
