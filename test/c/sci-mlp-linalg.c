// RUN: %check-c %s %t
// Machine learning and linear algebra as C programs write them, in both
// modes, against central differences:
// - a two-layer perceptron (tanh) with softmax cross-entropy over a batch:
//   weights malloc'd and reached through a struct of pointers (enzyme_dup),
//   the batch an array of structs with an int label (enzyme_const), the
//   softmax shifted by its running maximum;
// - LU with partial pivoting (row swaps chosen by fabs), then forward and
//   back substitution, all in place on the arguments;
// - Cholesky in place with an early return on a non-positive pivot, then a
//   log-determinant and two triangular solves.
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

enum { IN = 3, HIDDEN = 5, OUT = 4, BATCH = 6, N = 4 };

typedef struct {
  double x[IN];
  int label;
} Sample;

typedef struct {
  double *w1, *b1, *w2, *b2;
} Net;

static double sample_loss(const Net *net, const Sample *s) {
  double h[HIDDEN], z[OUT], top = -INFINITY;
  for (int j = 0; j < HIDDEN; j++) {
    double a = net->b1[j];
    for (int i = 0; i < IN; i++)
      a += net->w1[j * IN + i] * s->x[i];
    h[j] = tanh(a);
  }
  for (int k = 0; k < OUT; k++) {
    z[k] = net->b2[k];
    for (int j = 0; j < HIDDEN; j++)
      z[k] += net->w2[k * HIDDEN + j] * h[j];
    if (z[k] > top)
      top = z[k];
  }
  double sum = 0;
  for (int k = 0; k < OUT; k++)
    sum += exp(z[k] - top);
  return -(z[s->label] - top - log(sum));
}

double batch_loss(const Net *net, const Sample *batch, int n) {
  double total = 0;
  for (int b = 0; b < n; b++)
    total += sample_loss(net, &batch[b]);
  return total / n;
}

/* sum (i + 1) x_i^2 for A x = b, A and b overwritten */
double lu_solve(double *A, double *b, int n) {
  for (int k = 0; k < n; k++) {
    int p = k;
    for (int i = k + 1; i < n; i++)
      if (fabs(A[i * n + k]) > fabs(A[p * n + k]))
        p = i;
    if (p != k) {
      for (int j = 0; j < n; j++) {
        double t = A[k * n + j];
        A[k * n + j] = A[p * n + j];
        A[p * n + j] = t;
      }
      double t = b[k];
      b[k] = b[p];
      b[p] = t;
    }
    for (int i = k + 1; i < n; i++) {
      A[i * n + k] /= A[k * n + k];
      for (int j = k + 1; j < n; j++)
        A[i * n + j] -= A[i * n + k] * A[k * n + j];
      b[i] -= A[i * n + k] * b[k];
    }
  }
  for (int i = n - 1; i >= 0; i--) {
    for (int j = i + 1; j < n; j++)
      b[i] -= A[i * n + j] * b[j];
    b[i] /= A[i * n + i];
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (i + 1) * b[i] * b[i];
  return s;
}

/* log det S + x.x for S x = b (the lower triangle of S read) */
double cholesky(double *S, double *b, int n) {
  for (int j = 0; j < n; j++) {
    double d = S[j * n + j];
    for (int k = 0; k < j; k++)
      d -= S[j * n + k] * S[j * n + k];
    if (d <= 0)
      return NAN;
    S[j * n + j] = sqrt(d);
    for (int i = j + 1; i < n; i++) {
      double t = S[i * n + j];
      for (int k = 0; k < j; k++)
        t -= S[i * n + k] * S[j * n + k];
      S[i * n + j] = t / S[j * n + j];
    }
  }
  double logdet = 0;
  for (int i = 0; i < n; i++)
    logdet += 2 * log(S[i * n + i]);
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < i; k++)
      b[i] -= S[i * n + k] * b[k];
    b[i] /= S[i * n + i];
  }
  for (int i = n - 1; i >= 0; i--) {
    for (int k = i + 1; k < n; k++)
      b[i] -= S[k * n + i] * b[k];
    b[i] /= S[i * n + i];
  }
  double xx = 0;
  for (int i = 0; i < n; i++)
    xx += b[i] * b[i];
  return logdet + xx;
}

static double *filled(int n, unsigned *seed) {
  double *p = malloc(n * sizeof *p);
  for (int i = 0; i < n; i++) {
    *seed = *seed * 1103515245u + 12345u;
    p[i] = ((*seed >> 8) % 1000) / 1000.0 - 0.5;
  }
  return p;
}

typedef double (*InPlace)(double *, double *, int);

/* the gradient in A and b against central differences, and forward mode
 * along b's first entry */
static void check_in_place(const char *what, InPlace f, const double *A0,
                           const double *b0, const double *dA, const double *db, double forward) {
  double h = 1e-6;
  for (int k = 0; k < N * N + N; k++) {
    double Au[N * N], bu[N], Ad[N * N], bd[N];
    memcpy(Au, A0, sizeof Au);
    memcpy(Ad, A0, sizeof Ad);
    memcpy(bu, b0, sizeof bu);
    memcpy(bd, b0, sizeof bd);
    double *up = k < N * N ? &Au[k] : &bu[k - N * N], *down = k < N * N ? &Ad[k] : &bd[k - N * N];
    *up += h;
    *down -= h;
    check_close(what, k < N * N ? dA[k] : db[k - N * N], (f(Au, bu, N) - f(Ad, bd, N)) / (2 * h), 1e-6);
  }
  check_close(what, forward, db[0], 1e-10);
}

int main(void) {
  unsigned seed = 7;
  Net net = {filled(HIDDEN * IN, &seed), filled(HIDDEN, &seed), filled(OUT * HIDDEN, &seed), filled(OUT, &seed)};
  Net grad = {calloc(HIDDEN * IN, sizeof(double)), calloc(HIDDEN, sizeof(double)),
              calloc(OUT * HIDDEN, sizeof(double)), calloc(OUT, sizeof(double))};
  Sample batch[BATCH];
  for (int b = 0; b < BATCH; b++) {
    double *x = filled(IN, &seed);
    memcpy(batch[b].x, x, sizeof batch[b].x);
    free(x);
    batch[b].label = b % OUT;
  }
  __enzyme_autodiff((void *)batch_loss, enzyme_dup, &net, &grad, enzyme_const, batch, enzyme_const, BATCH);
  double *weights[4] = {net.w1, net.b1, net.w2, net.b2}, *grads[4] = {grad.w1, grad.b1, grad.w2, grad.b2};
  int sizes[4] = {HIDDEN * IN, HIDDEN, OUT * HIDDEN, OUT};
  double along_w2 = 0;
  for (int t = 0; t < 4; t++)
    for (int i = 0; i < sizes[t]; i++) {
      double kept = weights[t][i], h = 1e-6;
      weights[t][i] = kept + h;
      double up = batch_loss(&net, batch, BATCH);
      weights[t][i] = kept - h;
      double down = batch_loss(&net, batch, BATCH);
      weights[t][i] = kept;
      check_close("perceptron: gradient", grads[t][i], (up - down) / (2 * h), 1e-6);
      along_w2 += t == 2 ? grads[t][i] : 0;
    }
  Net tangent = {calloc(HIDDEN * IN, sizeof(double)), calloc(HIDDEN, sizeof(double)),
                 calloc(OUT * HIDDEN, sizeof(double)), calloc(OUT, sizeof(double))};
  for (int i = 0; i < OUT * HIDDEN; i++)
    tangent.w2[i] = 1;
  check_close("perceptron: forward along w2",
              __enzyme_fwddiff((void *)batch_loss, enzyme_dup, &net, &tangent, enzyme_const, batch, enzyme_const,
                               BATCH),
              along_w2, 1e-12);

  const double A0[N * N] = {1, 2, 0.5, 0.1, 4, 1, 0.3, 2, 0.2, 0.7, 3, 1, 1, 0.1, 0.4, 2};
  const double S0[N * N] = {4, 1, 0.5, 0.2, 1, 3, 0.4, 0.1, 0.5, 0.4, 2, 0.3, 0.2, 0.1, 0.3, 1.5};
  const double b0[N] = {1, -2, 0.5, 3};
  InPlace solvers[2] = {lu_solve, cholesky};
  const double *matrices[2] = {A0, S0};
  const char *names[2] = {"LU with pivoting", "Cholesky"};
  for (int s = 0; s < 2; s++) {
    double A[N * N], b[N], dA[N * N] = {0}, db[N] = {0}, tA[N * N] = {0}, tb[N] = {1, 0, 0, 0};
    memcpy(A, matrices[s], sizeof A);
    memcpy(b, b0, sizeof b);
    if (s == 0)
      __enzyme_autodiff((void *)lu_solve, enzyme_dup, A, dA, enzyme_dup, b, db, enzyme_const, N);
    else
      __enzyme_autodiff((void *)cholesky, enzyme_dup, A, dA, enzyme_dup, b, db, enzyme_const, N);
    memcpy(A, matrices[s], sizeof A);
    memcpy(b, b0, sizeof b);
    double forward = s == 0 ? __enzyme_fwddiff((void *)lu_solve, enzyme_dup, A, tA, enzyme_dup, b, tb, enzyme_const, N)
                            : __enzyme_fwddiff((void *)cholesky, enzyme_dup, A, tA, enzyme_dup, b, tb, enzyme_const, N);
    check_in_place(names[s], solvers[s], matrices[s], b0, dA, db, forward);
  }
  return check_exit();
}
