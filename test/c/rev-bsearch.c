// RUN: %check-c %s %t
// bsearch inside differentiated code, both modes. Its model, a binary
// search like glibc's calling the comparator, goes in place of the call,
// so that the element found is an address into the array and has the
// shadow at the same offset:
// - a table of (key, value) records passed enzyme_dup: the derivative of
//   the value found lands in that record's shadow, and none in the others;
// - a key that is not in the table: bsearch returns NULL and the function
//   takes its other branch;
// - a search of Const knots (an int key array on the stack beside it,
//   sorted with qsort), mixed with snprintf, strlen, getenv, srand/rand,
//   which carry no derivative.
// At -O2 glibc's <stdlib.h> gives bsearch an inline body; the model still
// stands for it.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef struct {
  int key;
  double value;
} Record;

static int by_key(const void *a, const void *b) {
  int x = *(const int *)a, y = ((const Record *)b)->key;
  return (x > y) - (x < y);
}

static int by_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* value(key) * x, or x * x when the key is missing */
double lookup(const Record *table, int n, int key, double x) {
  const Record *hit = bsearch(&key, table, n, sizeof *table, by_key);
  if (!hit)
    return x * x;
  return hit->value * x + sin(hit->value);
}

double bookkeeping(const double *w, int n) {
  int keys[5] = {7, 3, 9, 1, 4}, want = 4;
  qsort(keys, 5, sizeof *keys, by_int);
  const int *hit = bsearch(&want, keys, 5, sizeof *keys, by_int);
  int rank = hit ? (int)(hit - keys) : -1; /* 2 */
  char label[32];
  snprintf(label, sizeof label, "rank %d of %d", rank, n);
  const char *scale = getenv("KINASE_BSEARCH_TEST_UNSET");
  srand(7);
  double noise = (rand() % 2) * 0.0;
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (rank + 1) * w[i] * w[i] * (scale ? 2.0 : 1.0) + noise + 0 * (double)strlen(label);
  return s;
}

int main(void) {
  Record table[4] = {{2, 0.5}, {5, -1.25}, {8, 2.0}, {13, 0.75}};
  Record dtable[4] = {{0}};
  double x = 1.5;
  double dx = __enzyme_autodiff((void *)lookup, enzyme_dup, table, dtable, enzyme_const, 4, enzyme_const, 8, x);
  check_close("found: d/dx", dx, 2.0, 1e-15);
  check_close("found: d/dvalue", dtable[2].value, x + cos(2.0), 1e-15);
  check_close("found: nothing in the other records", fabs(dtable[0].value) + fabs(dtable[1].value) + fabs(dtable[3].value), 0, 0);
  Record ttable[4] = {{0, 0}, {0, 0}, {0, 1}, {0, 0}};
  check_close("found: forward, d/dvalue", __enzyme_fwddiff((void *)lookup, enzyme_dup, table, ttable, enzyme_const, 4, enzyme_const, 8, x, 0.0), x + cos(2.0), 1e-15);
  check_close("found: forward, d/dx", __enzyme_fwddiff((void *)lookup, enzyme_dup, table, dtable, enzyme_const, 4, enzyme_const, 5, x, 1.0), -1.25, 1e-15);

  Record dmissing[4] = {{0}};
  dx = __enzyme_autodiff((void *)lookup, enzyme_dup, table, dmissing, enzyme_const, 4, enzyme_const, 6, x);
  check_close("missing: d/dx", dx, 2 * x, 1e-15);
  for (int i = 0; i < 4; i++)
    check_close("missing: no d/dvalue", dmissing[i].value, 0, 0);

  double w[3] = {0.5, -2, 1.25}, dw[3] = {0};
  __enzyme_autodiff((void *)bookkeeping, enzyme_dup, w, dw, enzyme_const, 3);
  for (int i = 0; i < 3; i++)
    check_close("bookkeeping: d/dw", dw[i], 3 * 2 * w[i], 1e-15);
  double tw[3] = {0, 1, 0};
  check_close("bookkeeping: forward", __enzyme_fwddiff((void *)bookkeeping, enzyme_dup, w, tw, enzyme_const, 3), 3 * 2 * w[1], 1e-15);
  return check_exit();
}
