// RUN: %check-c %s %t
// Reverse mode through in-place sorting: an insertion sort of floats (swaps
// in a data-dependent while loop) and a selection sort of doubles, each
// followed by a rank-weighted sum of the largest k elements. The gradient of
// an input element is the weight of the position where it ends up, or 0.
// Enzyme-style calls: the function is passed without a cast, arguments are
// unmarked (pointers are dup, integers const), and the result comes back
// through a pointer whose shadow is seeded by the caller.
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

void insort_topk(float *__restrict v, int n, int k, float *__restrict out)
{
  for (int i = 1; i < n; i++) {
    int j = i;
    while (j > 0 && v[j - 1] < v[j]) {
      float t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
      j -= 1;
    }
  }
  float s = 0;
  for (int i = 0; i < k; i++)
    s += v[i] * (float)(i + 1);
  *out = s;
}

static void swap_d(double *a, double *b)
{
  double t = *a;
  *a = *b;
  *b = t;
}

double selsort_topk(double *v, int n, int k)
{
  for (int i = 0; i < n - 1; i++) {
    int best = i;
    for (int j = i + 1; j < n; j++)
      if (v[j] > v[best])
        best = j;
    if (best != i)
      swap_d(&v[i], &v[best]);
  }
  double s = 0;
  for (int i = 0; i < k; i++)
    s += v[i] * v[i] * (i + 1);
  return s;
}

/* rank of v[i] among distinct values: how many are larger */
static int rank_of(const double *v, int n, int i)
{
  int r = 0;
  for (int j = 0; j < n; j++)
    r += v[j] > v[i];
  return r;
}

int main(void)
{
  enum { N = 9, K = 4 };
  const double init[N] = {0.3, 2.5, -1.0, 4.0, 1.5, 0.7, 3.2, -2.2, 0.05};
  char what[64];

  float *v = malloc(sizeof(float) * N), *dv = malloc(sizeof(float) * N);
  for (int i = 0; i < N; i++) {
    v[i] = (float)init[i];
    dv[i] = 0.0f;
  }
  float out = 0, dout = 2.0f;
  __enzyme_autodiff(insort_topk, v, dv, N, K, &out, &dout);
  float want_out = 0;
  for (int i = 0; i < N; i++) {
    int r = rank_of(init, N, i);
    double w = r < K ? 2.0 * (r + 1) : 0.0;
    if (r < K)
      want_out += (float)init[i] * (float)(r + 1);
    snprintf(what, sizeof what, "insertion sort dv[%d]", i);
    check_close(what, dv[i], w, 1e-6);
  }
  check_close("insertion sort result", out, want_out, 1e-6);
  check_close("insertion sort output shadow consumed", dout, 0.0, 0.0);
  for (int i = 1; i < N; i++)
    check_true("insertion sort left the array sorted", v[i - 1] >= v[i]);

  double d[N], dd[N];
  for (int i = 0; i < N; i++) {
    d[i] = init[i];
    dd[i] = 0.0;
  }
  __enzyme_autodiff(selsort_topk, enzyme_dup, d, dd, enzyme_const, N, enzyme_const, K);
  for (int i = 0; i < N; i++) {
    int r = rank_of(init, N, i);
    double w = r < K ? 2.0 * init[i] * (r + 1) : 0.0;
    snprintf(what, sizeof what, "selection sort dd[%d]", i);
    check_close(what, dd[i], w, 1e-13);
  }
  free(v);
  free(dv);
  return check_exit();
}
