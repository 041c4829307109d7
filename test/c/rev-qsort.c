// RUN: %check-c %s %t
// qsort inside differentiated code, with the user's comparator: an index
// array sorted by keys that carry no derivative; the active values
// themselves sorted in place (a trimmed mean, an order-statistics loss);
// an array of structs sorted by one field; and floats. The gradient follows
// the permutation the sort chose: each input gets the weight of the place
// it was sorted to.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
float __enzyme_autodiff_f(void *, ...);

enum { N = 7 };

static const double *sort_keys;
static int by_key(const void *a, const void *b)
{
  double ka = sort_keys[*(const int *)a], kb = sort_keys[*(const int *)b];
  return (ka > kb) - (ka < kb);
}

/* sum_r r * x[idx[r]]^2, idx sorted by keys */
static double ranked(const double *x, const double *keys)
{
  int idx[N];
  for (int i = 0; i < N; i++)
    idx[i] = i;
  sort_keys = keys;
  qsort(idx, N, sizeof idx[0], by_key);
  double s = 0;
  for (int r = 0; r < N; r++)
    s += r * x[idx[r]] * x[idx[r]];
  return s;
}

static int ascending(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* the mean of the middle n - 2 values, sorted in place */
static double trimmed_mean(double *x, int n)
{
  qsort(x, n, sizeof *x, ascending);
  double s = 0;
  for (int i = 1; i < n - 1; i++)
    s += x[i];
  return s / (n - 2);
}

/* sum_r (r + 1) y_r^2 over a sorted copy: an order-statistics loss */
static double order_loss(const double *x, int n)
{
  double *y = malloc(n * sizeof *y);
  memcpy(y, x, n * sizeof *y);
  qsort(y, n, sizeof *y, ascending);
  double s = 0;
  for (int r = 0; r < n; r++)
    s += (r + 1) * y[r] * y[r];
  free(y);
  return s;
}

struct item {
  int id;
  double weight, value;
};

static int by_value_descending(const void *a, const void *b)
{
  const struct item *p = a, *q = b;
  return (p->value < q->value) - (p->value > q->value);
}

/* the weights of the three most valuable items, scaled by their values */
static double top3(const struct item *items, int n)
{
  struct item local[N];
  memcpy(local, items, n * sizeof *items);
  qsort(local, n, sizeof *local, by_value_descending);
  return local[0].weight * local[0].value + 0.5 * local[1].weight * local[1].value +
         0.25 * local[2].weight * local[2].value;
}

static int ascending_f(const void *a, const void *b)
{
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

static float median_f(float *x, int n)
{
  qsort(x, n, sizeof *x, ascending_f);
  return x[n / 2] * x[n / 2];
}

/* the place each x[i] takes in ascending order */
static void ranks_of(const double *x, int n, int *rank)
{
  for (int i = 0; i < n; i++) {
    rank[i] = 0;
    for (int j = 0; j < n; j++)
      rank[i] += x[j] < x[i];
  }
}

int main(void)
{
  const double x0[N] = {0.5, -1.0, 2.0, 0.25, -0.75, 1.5, 3.0};
  double x[N], dx[N] = {0}, t[N] = {1, -2, 3, 0.5, 1, -1, 2};
  int rank[N];
  ranks_of(x0, N, rank);
  memcpy(x, x0, sizeof x);

  const double keys[N] = {3.0, -1.0, 2.5, 0.0, 7.0, -4.0, 1.0};
  int key_rank[N];
  ranks_of(keys, N, key_rank);
  __enzyme_autodiff((void *)ranked, enzyme_dup, x, dx, enzyme_const, keys);
  double want = 0;
  for (int i = 0; i < N; i++) {
    char what[48];
    snprintf(what, sizeof what, "ranked: dx[%d]", i);
    check_close(what, dx[i], 2 * key_rank[i] * x[i], 1e-14);
    want += 2 * key_rank[i] * x[i] * t[i];
  }
  check_close("ranked: forward", __enzyme_fwddiff((void *)ranked, enzyme_dup, x, t, enzyme_const, keys), want, 1e-14);

  /* trimmed mean: every value but the smallest and the largest weighs 1/(N-2);
   * after the call x is sorted, and its shadow is consumed */
  memset(dx, 0, sizeof dx);
  double tm = __enzyme_autodiff((void *)trimmed_mean, enzyme_dup, x, dx, enzyme_const, N);
  (void)tm;
  for (int i = 0; i < N; i++) {
    char what[48];
    snprintf(what, sizeof what, "trimmed mean: dx[%d]", i);
    check_close(what, dx[i], rank[i] == 0 || rank[i] == N - 1 ? 0 : 1.0 / (N - 2), 1e-14);
  }
  check_true("trimmed mean: x sorted by the call", x[0] == -1.0 && x[N - 1] == 3.0);
  memcpy(x, x0, sizeof x);
  double tx[N];
  memcpy(tx, t, sizeof t);
  want = 0;
  for (int i = 0; i < N; i++)
    want += rank[i] == 0 || rank[i] == N - 1 ? 0 : t[i] / (N - 2);
  check_close("trimmed mean: forward", __enzyme_fwddiff((void *)trimmed_mean, enzyme_dup, x, tx, enzyme_const, N), want,
              1e-14);
  memcpy(x, x0, sizeof x);

  memset(dx, 0, sizeof dx);
  __enzyme_autodiff((void *)order_loss, enzyme_dup, x, dx, enzyme_const, N);
  want = 0;
  for (int i = 0; i < N; i++) {
    char what[48];
    snprintf(what, sizeof what, "order loss: dx[%d]", i);
    check_close(what, dx[i], 2 * (rank[i] + 1) * x[i], 1e-14);
    want += 2 * (rank[i] + 1) * x[i] * t[i];
  }
  check_close("order loss: forward", __enzyme_fwddiff((void *)order_loss, enzyme_dup, x, t, enzyme_const, N), want, 1e-14);

  struct item items[5] = {{0, 1.0, 0.3}, {1, 2.0, 0.9}, {2, 0.5, 0.1}, {3, 1.5, 0.7}, {4, 3.0, 0.5}};
  struct item ditems[5];
  memset(ditems, 0, sizeof ditems);
  __enzyme_autodiff((void *)top3, enzyme_dup, items, ditems, enzyme_const, 5);
  /* by value: item 1 (0.9), item 3 (0.7), item 4 (0.5) */
  const double scale[5] = {0, 1, 0, 0.5, 0.25};
  for (int i = 0; i < 5; i++) {
    char what[48];
    snprintf(what, sizeof what, "top3: dweight[%d]", i);
    check_close(what, ditems[i].weight, scale[i] * items[i].value, 1e-14);
    snprintf(what, sizeof what, "top3: dvalue[%d]", i);
    check_close(what, ditems[i].value, scale[i] * items[i].weight, 1e-14);
  }

  float xf[N] = {0.5f, -1.0f, 2.0f, 0.25f, -0.75f, 1.5f, 3.0f}, dxf[N] = {0};
  __enzyme_autodiff_f((void *)median_f, enzyme_dup, xf, dxf, enzyme_const, N);
  /* the median of x0 is 0.5, x0[0] */
  for (int i = 0; i < N; i++) {
    char what[48];
    snprintf(what, sizeof what, "median (float): dx[%d]", i);
    check_close(what, dxf[i], i == 0 ? 2 * 0.5 : 0, 1e-7);
  }
  return check_exit();
}
