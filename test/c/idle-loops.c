// Loops with no adjoint work in them are stepped over by the reverse sweep
// (lib/reverse/idleloops.c): a search over a Const table whose index is
// used after it, an integer generator skipped ahead before it is used, a
// loop with two exits in a callee called from a loop, a local index table
// filled by one loop and read by an active one. Gradients against analytic
// values and central differences.
// RUN: %check-c %s %t
#include <math.h>
#include <stdio.h>
#include <stdint.h>
extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);

/* 1: a search over a Const table, then the found index used */
double search(double x, const double *table, const double *w, int n) {
  int k = 0;
  while (k < n - 1 && table[k] < 2.0) k++;
  return x * w[k] + sin(x * k);
}

/* 2: an integer generator skipped ahead, its state then used as a float */
static uint32_t step(uint32_t s) { return s * 1664525u + 1013904223u; }
double noisy(double mu, double s, unsigned skip) {
  uint32_t st = 12345u;
  for (unsigned i = 0; i < skip; i++) st = step(st);
  double acc = 0;
  for (int i = 0; i < 5; i++) {
    st = step(st);
    double z = (st >> 8) * (1.0 / 16777216.0) - 0.5;
    double v = mu + s * z;
    acc += v * v;
  }
  return acc;
}

/* 3: an idle loop with two exits, in a callee called from a loop */
__attribute__((noinline)) static int first_big(const int *a, int n) {
  for (int i = 0; i < n; i++) {
    if (a[i] > 100) return i;
    if (a[i] < -100) break;
  }
  return n / 2;
}
double outer(double x, const int *a, int n) {
  double y = 0;
  for (int r = 0; r < 3; r++) {
    int k = first_big(a + r, n - r);
    y += x * x * (k + 1);
  }
  return y;
}

/* 4: an idle loop fills a local integer table, an active loop reads it */
double tabled(double *p, int n) {
  int idx[16];
  for (int i = 0; i < 16; i++) idx[i] = (i * 7) % n;
  double y = 0;
  for (int i = 0; i < 16; i++) y += p[idx[i]] * p[idx[(i + 1) % 16]];
  return y;
}

static int fails;
static void check(const char *what, double got, double want) {
  if (fabs(got - want) > 1e-6 * (1 + fabs(want))) { printf("FAIL %s: %.12g want %.12g\n", what, got, want); fails++; }
}

int main(void) {
  double table[6] = {0, 1, 1.5, 2.5, 3, 4}, w[6] = {1, 2, 3, 4, 5, 6};
  double x = 0.7, h = 1e-6;
  double g = __enzyme_autodiff((void *)search, x, enzyme_const, table, enzyme_const, w, enzyme_const, 6);
  check("search", g, 4 + 3 * cos(3 * x));
  double mu = 0.3, s = 1.2;
  double cd_mu = (noisy(mu + h, s, 77) - noisy(mu - h, s, 77)) / (2 * h);
  double cd_s = (noisy(mu, s + h, 77) - noisy(mu, s - h, 77)) / (2 * h);
  typedef struct { double a, b; } Pair;
  Pair pr = ((Pair (*)(void *, ...))__enzyme_autodiff)((void *)noisy, mu, s, enzyme_const, 77u);
  check("noisy mu", pr.a, cd_mu);
  check("noisy s", pr.b, cd_s);
  int a[10] = {1, 2, 300, 4, -500, 6, 7, 8, 9, 10};
  double go = __enzyme_autodiff((void *)outer, x, enzyme_const, a, enzyme_const, 10);
  double cd_o = (outer(x + h, a, 10) - outer(x - h, a, 10)) / (2 * h);
  check("outer", go, cd_o);
  double p[5] = {1, 2, 3, 4, 5}, dp[5] = {0};
  __enzyme_autodiff((void *)tabled, enzyme_dup, p, dp, 5);
  for (int j = 0; j < 5; j++) {
    double q[5]; for (int t = 0; t < 5; t++) q[t] = p[t];
    q[j] += h; double up = tabled(q, 5); q[j] -= 2 * h; double dn = tabled(q, 5);
    check("tabled", dp[j], (up - dn) / (2 * h));
  }
  printf("%s\n", fails ? "FAILED" : "ok");
  return fails != 0;
}
