// RUN: %check-c %s %t
// Reverse mode through inner loops whose iterations the reverse sweep
// computes from the exit test instead of recording them once per outer
// iteration (lib/reverse/tripcount.c): an inner loop starting at the outer
// index (i < m, signed), counting down (j > i), walking a pointer to an end
// (p != end), unsigned and inclusive (j <= i), counting down to a sentinel
// (j != -1), and one left with the bound already past (no iteration). Each
// gradient is checked against central differences; a wrong count restarts
// the reverse loop at the wrong iteration and breaks them.
#include <math.h>
#include "check.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { N = 7 };

static double from_outer_index(const double *x, int n, int m) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = i; j < m; j++)
      s += sin(x[j]) * x[i] * (j - i + 1);
  return s;
}

static double counting_down(const double *x, int n, int m) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = m - 1; j > i; j--)
      s += cos(x[j] * x[i]) * j;
  return s;
}

static double pointer_to_end(const double *x, int n, int m) {
  double s = 0.0;
  for (int i = 0; i < m && i < n; i++)
    for (const double *p = x + i; p != x + n; p++)
      s += *p * *p * x[i] * (double)(p - x);
  return s;
}

static double unsigned_inclusive(const double *x, int n, int m) {
  double s = 1.0;
  for (unsigned i = 0; i < (unsigned)n; i++)
    for (unsigned j = 0; j <= i; j++)
      s += x[i] * exp(0.1 * x[j] * (double)(m - (int)j));
  return s;
}

static double down_to_sentinel(const double *x, int n, int m) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double p = 1.0;
    for (int j = i; j != -1; j--)
      p = p * x[j] + (m - j);
    s += p;
  }
  return s;
}

typedef double (*Function)(const double *, int, int);

static void check_gradient(const char *name, Function f, int n, int m) {
  double x[N], dx[N] = {0};
  for (int k = 0; k < N; k++)
    x[k] = 0.3 + 0.17 * k;
  if (f == from_outer_index)
    __enzyme_autodiff((void *)from_outer_index, enzyme_dup, x, dx, enzyme_const, n, enzyme_const, m);
  else if (f == counting_down)
    __enzyme_autodiff((void *)counting_down, enzyme_dup, x, dx, enzyme_const, n, enzyme_const, m);
  else if (f == pointer_to_end)
    __enzyme_autodiff((void *)pointer_to_end, enzyme_dup, x, dx, enzyme_const, n, enzyme_const, m);
  else if (f == unsigned_inclusive)
    __enzyme_autodiff((void *)unsigned_inclusive, enzyme_dup, x, dx, enzyme_const, n, enzyme_const, m);
  else
    __enzyme_autodiff((void *)down_to_sentinel, enzyme_dup, x, dx, enzyme_const, n, enzyme_const, m);
  for (int k = 0; k < N; k++) {
    double h = central_difference_step(x[k]), saved = x[k];
    x[k] = saved + h;
    double up = f(x, n, m);
    x[k] = saved - h;
    double down = f(x, n, m);
    x[k] = saved;
    char what[64];
    snprintf(what, sizeof what, "%s(n=%d, m=%d) d/dx[%d]", name, n, m, k);
    check_close(what, dx[k], (up - down) / (2 * h), 1e-6);
  }
}

int main(void) {
  static const struct {
    const char *name;
    Function f;
  } functions[] = {
      {"from_outer_index", from_outer_index}, {"counting_down", counting_down},
      {"pointer_to_end", pointer_to_end},     {"unsigned_inclusive", unsigned_inclusive},
      {"down_to_sentinel", down_to_sentinel},
  };
  /* m below n: inner loops left at once for the later outer iterations. */
  static const int sizes[][2] = {{N, N}, {N, 4}, {3, N}, {0, 2}, {1, 1}};
  for (size_t f = 0; f < sizeof functions / sizeof *functions; f++)
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
      check_gradient(functions[f].name, functions[f].f, sizes[s][0], sizes[s][1]);
  return check_exit();
}
