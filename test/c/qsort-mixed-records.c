/* qsort over an array of structs whose fields are floats of two types
 * (and, in the second, a pointer beside them): the model of qsort moves
 * whole elements with memcpy, which reverse mode must split field by
 * field. The memory is an array of one record (the struct the accesses
 * and the local array name), so the reverse moves each float field's
 * adjoint as its own type and the augmented sweep copies the pointer's
 * shadow, leaving the floats' adjoints in place (reverse/copyloops.c).
 * Both were refused before ("whose element type Kinase cannot decide"). */
// RUN: %check-c %s %t
#include <stdlib.h>

#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
int enzyme_dup, enzyme_const;

struct item {
  float w;
  double x;
  int id;
};

static int by_x(const void *a, const void *b) {
  const struct item *p = a, *q = b;
  return (p->x > q->x) - (p->x < q->x);
}

/* sum over ranks r of r * x * w, the elements sorted by x */
static double ranked(struct item *it, int n) {
  struct item tmp[8];
  for (int i = 0; i < n; i++)
    tmp[i] = it[i];
  qsort(tmp, n, sizeof tmp[0], by_x);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (i + 1) * tmp[i].x * tmp[i].w;
  return s;
}

struct tagged {
  double key;
  const double *scale;
  float bias;
};

static int by_key(const void *a, const void *b) {
  const struct tagged *p = a, *q = b;
  return (p->key > q->key) - (p->key < q->key);
}

/* the same through elements pointing at their scales, sorted on the heap */
static double ranked_pointers(const double *keys, const double *scales, int n) {
  struct tagged *t = malloc(n * sizeof *t);
  for (int i = 0; i < n; i++)
    t[i] = (struct tagged){keys[i], &scales[i], 0.5f};
  qsort(t, n, sizeof *t, by_key);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (i + 1) * t[i].key * *t[i].scale + t[i].bias;
  free(t);
  return s;
}

int main(void) {
  struct item it[5] = {{1.5f, 3.0, 0}, {2.0f, 1.0, 1}, {0.5f, 2.0, 2}, {1.0f, 5.0, 3}, {3.0f, 4.0, 4}};
  struct item d[5] = {0};
  int rank[5] = {3, 1, 2, 5, 4};
  __enzyme_autodiff((void *)ranked, enzyme_dup, it, d, enzyme_const, 5);
  for (int i = 0; i < 5; i++) {
    check_close("d x", d[i].x, rank[i] * it[i].w, 1e-6);
    check_close("d w", d[i].w, rank[i] * it[i].x, 1e-6);
  }
  struct item t[5] = {{0}};
  t[2].x = 1; /* tangent along x of element 2 (rank 2) */
  check_close("forward", __enzyme_fwddiff((void *)ranked, enzyme_dup, it, t, enzyme_const, 5), 2 * it[2].w, 1e-6);

  double keys[5] = {3, 1, 2, 5, 4}, scales[5] = {0.5, 1.5, 2.5, 3.5, 4.5};
  double dkeys[5] = {0}, dscales[5] = {0};
  __enzyme_autodiff((void *)ranked_pointers, enzyme_dup, keys, dkeys, enzyme_dup, scales, dscales,
                    enzyme_const, 5);
  for (int i = 0; i < 5; i++) {
    check_close("d key", dkeys[i], rank[i] * scales[i], 1e-12);
    check_close("d scale", dscales[i], rank[i] * keys[i], 1e-12);
  }
  return check_exit();
}
