/* The cheap-gradient bound on the CPU: for loop-heavy functions the
 * reverse-mode gradient should cost at most 3x the primal. Prints one line
 * per kernel: primal time, gradient time, ratio. Build with kinase-cc -O2.
 * `calls` calls a small noinline function from the loop: the cost of a
 * call's augmented forward and reverse pair, tape included. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);

enum { N = 1000000, REPEAT = 20 };

__attribute__((noinline)) double dot(const double *x, const double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * y[i];
  return s;
}

__attribute__((noinline)) double horner(const double *c, int n, double x) {
  double p = 0;
  for (int i = n - 1; i >= 0; i--)
    p = p * x + c[i];
  return p;
}

/* Energy of a 1-D three-point stencil: sum (u[i-1] - 2u[i] + u[i+1])^2. */
__attribute__((noinline)) double stencil(const double *u, int n) {
  double e = 0;
  for (int i = 1; i < n - 1; i++) {
    double lap = u[i - 1] - 2 * u[i] + u[i + 1];
    e += lap * lap;
  }
  return e;
}

#include <math.h>

__attribute__((noinline)) double pair_energy(double a, double b) { return sin(a) * b + a * a; }

__attribute__((noinline)) double calls(const double *u, int n) {
  double e = 0;
  for (int i = 0; i + 1 < n; i++)
    e += pair_energy(u[i], u[i + 1]);
  return e;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static volatile double sink;

#define TIME(expr)                                                                                 \
  ({                                                                                               \
    double best = 1e30;                                                                            \
    for (int r = 0; r < REPEAT; r++) {                                                             \
      double t0 = now();                                                                           \
      expr;                                                                                        \
      double t = now() - t0;                                                                       \
      best = t < best ? t : best;                                                                  \
    }                                                                                              \
    best;                                                                                          \
  })

static void report(const char *name, double primal, double gradient) {
  printf("%-8s primal %8.3f ms   gradient %8.3f ms   ratio %.2f\n", name, 1e3 * primal,
         1e3 * gradient, gradient / primal);
}

int main(void) {
  double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
  double *dx = calloc(N, sizeof *dx), *dy = calloc(N, sizeof *dy);
  for (int i = 0; i < N; i++) {
    x[i] = 1.0 / (i + 1);
    y[i] = (i % 7) * 0.25;
  }
  report("dot", TIME(sink = dot(x, y, N)),
         TIME(__enzyme_autodiff((void *)dot, enzyme_dup, x, dx, enzyme_dup, y, dy, N)));
  report("horner", TIME(sink = horner(x, N, 0.999)),
         TIME(sink = __enzyme_autodiff((void *)horner, enzyme_dup, x, dx, N, enzyme_out, 0.999)));
  report("stencil", TIME(sink = stencil(x, N)),
         TIME(__enzyme_autodiff((void *)stencil, enzyme_dup, x, dx, N)));
  report("calls", TIME(sink = calls(x, N)), TIME(__enzyme_autodiff((void *)calls, enzyme_dup, x, dx, N)));
  free(x), free(y), free(dx), free(dy);
  return 0;
}
