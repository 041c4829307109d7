// RUN: %check-c %s %t
// Forward substitution L x = b with restrict pointers, size_t loop counters
// compared with an int size, an inner bound of i (unsigned, so the loop must
// not wrap), and the solution written to an output array that is read again
// by later rows. Reverse mode with the output's shadow seeded (unmarked
// arguments, integer first), checked against central differences of the
// seeded sum; forward mode along one entry of L and of b.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void fsub(int n, const double *__restrict L, const double *__restrict b,
                                    double *__restrict x)
{
  for (size_t i = 0; i < n; i++) {
    double t = b[i];
    for (size_t j = 0; j < i; j++)
      t -= L[i * n + j] * x[j];
    x[i] = t / L[i * n + i];
  }
}

enum { N = 4 };
static double L0[N * N], B0[N], W[N] = {1.0, -2.0, 0.5, 3.0};

static double seeded(const double *L, const double *b)
{
  double x[N];
  fsub(N, L, b, x);
  double s = 0;
  for (int i = 0; i < N; i++)
    s += W[i] * x[i];
  return s;
}

static double fd_L(int k)
{
  double L[N * N], h = 1e-6;
  for (int i = 0; i < N * N; i++)
    L[i] = L0[i];
  L[k] += h;
  double p = seeded(L, B0);
  L[k] = L0[k] - h;
  double q = seeded(L, B0);
  return (p - q) / (2 * h);
}

static double fd_b(int k)
{
  double b[N], h = 1e-6;
  for (int i = 0; i < N; i++)
    b[i] = B0[i];
  b[k] += h;
  double p = seeded(L0, b);
  b[k] = B0[k] - h;
  double q = seeded(L0, b);
  return (p - q) / (2 * h);
}

int main(void)
{
  char what[64];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      L0[i * N + j] = j < i ? 0.1 * (i + 2 * j + 1) : j == i ? 2.0 + i : 0.0;
  for (int i = 0; i < N; i++)
    B0[i] = (i + 1) / 10.0;

  double L[N * N], dL[N * N] = {0}, b[N], db[N] = {0}, x[N], dx[N];
  for (int i = 0; i < N * N; i++)
    L[i] = L0[i];
  for (int i = 0; i < N; i++) {
    b[i] = B0[i];
    dx[i] = W[i];
  }
  __enzyme_autodiff((void *)fsub, N, L, dL, b, db, x, dx);
  for (int k = 0; k < N * N; k++) {
    snprintf(what, sizeof what, "dL[%d]", k);
    check_close(what, dL[k], fd_L(k), 1e-7);
  }
  for (int k = 0; k < N; k++) {
    snprintf(what, sizeof what, "db[%d]", k);
    check_close(what, db[k], fd_b(k), 1e-7);
    snprintf(what, sizeof what, "dx[%d] consumed", k);
    check_close(what, dx[k], 0.0, 0.0);
  }

  double tL[N * N] = {0}, tb[N] = {0}, tx[N] = {0};
  tL[2 * N + 1] = 1.0;
  tb[1] = 1.0;
  __enzyme_fwddiff((void *)fsub, N, L, tL, b, tb, x, tx);
  double t = 0;
  for (int i = 0; i < N; i++)
    t += W[i] * tx[i];
  check_close("forward along L[2][1] + b[1]", t, fd_L(2 * N + 1) + fd_b(1), 1e-7);
  return check_exit();
}
