// RUN: %check-c %s %t
// A growable array kept in a struct (`b->val = realloc(b->val, ...)`), the
// way a sparse matrix is assembled row by row: the buffer is reached by
// reloading the struct's field after each realloc, and the helper that
// grows it may never touch its elements. Reverse mode must move the
// adjoints of the elements the realloc kept back to where they were
// stored; it lost them (a gradient of zero for every element stored before
// the last realloc) when nothing in the function holding the realloc
// accessed the buffer through the realloc's own result.
#include <stdlib.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef struct {
  int n, cap;
  double *val;
  int *col;
} Row;

/* Grows and stores in one helper, starting from a null buffer. */
static void push(Row *r, int c, double v) {
  if (r->n == r->cap) {
    r->cap = r->cap ? 2 * r->cap : 2;
    r->val = realloc(r->val, sizeof(double) * r->cap);
    r->col = realloc(r->col, sizeof(int) * r->cap);
  }
  r->val[r->n] = v;
  r->col[r->n] = c;
  r->n++;
}

/* Only grows: the elements' type shows in its callers alone. */
__attribute__((noinline)) static void reserve(Row *r, int cap) {
  if (cap > r->cap) {
    r->cap = cap;
    r->val = realloc(r->val, sizeof(double) * cap);
    r->col = realloc(r->col, sizeof(int) * cap);
  }
}

/* sum_k w[col_k] * val_k^2, then the row's buffers are freed. */
static double weighted_release(Row *r, const double *w) {
  double s = 0;
  for (int k = 0; k < r->n; k++)
    s += w[r->col[k]] * r->val[k] * r->val[k];
  free(r->val);
  free(r->col);
  return s;
}

/* A row built from x by push. */
static double pushed(const double *x, const double *w, int n) {
  Row r = {0, 0, NULL, NULL};
  for (int i = 0; i < n; i++)
    push(&r, n - 1 - i, x[i] * x[(i + 1) % n]);
  return weighted_release(&r, w);
}

static double reserved(const double *x, const double *w, int n) {
  Row r = {0, 0, NULL, NULL};
  for (int i = 0; i < n; i++) {
    reserve(&r, r.n + 1 + r.n / 2);
    r.val[r.n] = sin(x[i]);
    r.col[r.n] = i;
    r.n++;
  }
  return weighted_release(&r, w);
}

enum { N = 7 };
static const double w[N] = {1.0, 0.5, 2.0, -1.0, 0.25, 3.0, 1.5};

static void check_gradient(const char *name, double (*f)(const double *, const double *, int),
                           const double *x, const double *dx, const double *fwd) {
  for (int i = 0; i < N; i++) {
    double xp[N], xm[N], h = 1e-6;
    for (int k = 0; k < N; k++)
      xp[k] = xm[k] = x[k];
    xp[i] += h;
    xm[i] -= h;
    char what[64];
    snprintf(what, sizeof what, "%s: reverse d/dx[%d]", name, i);
    check_close(what, dx[i], (f(xp, w, N) - f(xm, w, N)) / (2 * h), 1e-6);
    snprintf(what, sizeof what, "%s: forward d/dx[%d]", name, i);
    check_close(what, fwd[i], dx[i], 1e-12);
  }
}

/* A macro: a request names its function itself. Reverse into dx, forward
 * one direction at a time into fwd. */
#define GRADIENTS(f, x, dx, fwd)                                                                   \
  do {                                                                                             \
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, w, enzyme_const, N);             \
    for (int i = 0; i < N; i++) {                                                                  \
      double t[N] = {0};                                                                           \
      t[i] = 1;                                                                                    \
      fwd[i] = __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, w, enzyme_const, N);    \
    }                                                                                              \
  } while (0)

int main(void) {
  double x[N] = {0.3, -1.2, 0.8, 1.5, -0.4, 0.9, 2.1};
  double dx[N] = {0}, dy[N] = {0}, fwd[N];
  GRADIENTS(pushed, x, dx, fwd);
  check_gradient("pushed", pushed, x, dx, fwd);
  GRADIENTS(reserved, x, dy, fwd);
  check_gradient("reserved", reserved, x, dy, fwd);
  return check_exit();
}
