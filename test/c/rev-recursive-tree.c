// RUN: %check-c %s %t
// Recursion the reverse sweep cannot unroll: an expression tree evaluated
// by a recursive switch over node kinds (gradient with respect to the
// variables the leaves read), divide-and-conquer integer powers, and two
// mutually recursive functions. Each derivative calls itself through the
// derivative cache; both modes are checked against central differences.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

enum kind { K_CONST, K_VAR, K_ADD, K_MUL, K_SIN, K_EXP, K_DIV };

struct expr {
  enum kind kind;
  double value; /* K_CONST */
  int var;      /* K_VAR */
  const struct expr *l, *r;
};

static double eval(const struct expr *e, const double *x)
{
  switch (e->kind) {
  case K_CONST:
    return e->value;
  case K_VAR:
    return x[e->var];
  case K_ADD:
    return eval(e->l, x) + eval(e->r, x);
  case K_MUL:
    return eval(e->l, x) * eval(e->r, x);
  case K_SIN:
    return sin(eval(e->l, x));
  case K_EXP:
    return exp(eval(e->l, x));
  case K_DIV:
    return eval(e->l, x) / eval(e->r, x);
  }
  return 0;
}

/* x^n by squaring, recursively */
static double ipow(double x, unsigned n)
{
  if (n == 0)
    return 1.0;
  double h = ipow(x, n / 2);
  return n % 2 ? h * h * x : h * h;
}

static double odd_step(double x, int n);
static double even_step(double x, int n) { return n <= 0 ? x : odd_step(sin(x) + 0.5 * x, n - 1); }
static double odd_step(double x, int n) { return n <= 0 ? x * x : even_step(x * 0.9 + 0.1, n - 1); }

static double ipow7(double x) { return ipow(x, 7); }
static double mutual5(double x) { return even_step(x, 5); }
static double mutual6(double x) { return even_step(x, 6); }

/* the tree of  x0 * sin(x1 + 2) + exp(x0 * x1) / (x1 * x1 + 1) */
static const struct expr two = {K_CONST, 2.0}, one = {K_CONST, 1.0};
static const struct expr x0 = {K_VAR, 0, 0}, x1 = {K_VAR, 0, 1};
static const struct expr s1 = {K_ADD, 0, 0, &x1, &two}, s2 = {K_SIN, 0, 0, &s1};
static const struct expr m1 = {K_MUL, 0, 0, &x0, &s2}, m2 = {K_MUL, 0, 0, &x0, &x1};
static const struct expr e1 = {K_EXP, 0, 0, &m2}, q1 = {K_MUL, 0, 0, &x1, &x1};
static const struct expr d1 = {K_ADD, 0, 0, &q1, &one}, d2 = {K_DIV, 0, 0, &e1, &d1};
static const struct expr root = {K_ADD, 0, 0, &m1, &d2};

static double tree_at(double a, double b)
{
  double x[2] = {a, b};
  return eval(&root, x);
}

int main(void)
{
  double x[2] = {0.6, -0.8}, dx[2] = {0, 0};
  __enzyme_autodiff((void *)eval, enzyme_const, &root, enzyme_dup, x, dx);
  double a = x[0], b = x[1], den = b * b + 1, ex = exp(a * b);
  check_close("tree: d/dx0", dx[0], sin(b + 2) + b * ex / den, 1e-13);
  check_close("tree: d/dx1", dx[1], a * cos(b + 2) + a * ex / den - ex * 2 * b / (den * den), 1e-13);
  check_close("tree: value", tree_at(a, b), a * sin(b + 2) + ex / den, 1e-13);
  double t[2] = {1.0, -2.0};
  check_close("tree: forward", __enzyme_fwddiff((void *)eval, enzyme_const, &root, enzyme_dup, x, t),
              dx[0] * t[0] + dx[1] * t[1], 1e-13);

  double p = 1.3;
  check_close("ipow7: reverse", __enzyme_autodiff((void *)ipow7, p), 7 * pow(p, 6), 1e-13);
  check_close("ipow7: forward", __enzyme_fwddiff((void *)ipow7, p, 1.0), 7 * pow(p, 6), 1e-13);
  check_both_modes(mutual5, 0.7, 1e-6);
  check_both_modes(mutual6, -0.4, 1e-6);
  return check_exit();
}
