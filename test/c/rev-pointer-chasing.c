// RUN: %check-c %s %t
// Pointer-chasing data: a matrix as an array of row pointers (double **),
// whose shadow is an array of shadow rows, and a singly linked list whose
// shadow list mirrors it node by node (each shadow node's next points to
// the next shadow node, as Enzyme's convention for pointers in memory).
// Both modes, checked against analytic gradients.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

enum { ROWS = 3, COLS = 4, LEN = 5 };

/* sum_i (sum_j a[i][j] v[j])^2 */
static double quad(double **a, const double *v, int rows, int cols)
{
  double s = 0;
  for (int i = 0; i < rows; i++) {
    double r = 0;
    for (int j = 0; j < cols; j++)
      r += a[i][j] * v[j];
    s += r * r;
  }
  return s;
}

struct node {
  double value;
  int tag;
  struct node *next;
};

/* acc = acc * 0.5 + value * sin(value), walking the list to its end;
 * nodes tagged 0 are skipped. */
static double walk(const struct node *n)
{
  double acc = 0;
  while (n) {
    if (n->tag)
      acc = acc * 0.5 + n->value * sin(n->value);
    n = n->next;
  }
  return acc;
}

int main(void)
{
  double storage[ROWS][COLS], shadow[ROWS][COLS] = {{0}};
  double *a[ROWS], *da[ROWS];
  for (int i = 0; i < ROWS; i++) {
    a[i] = storage[ROWS - 1 - i]; /* rows out of order: the pointers matter */
    da[i] = shadow[ROWS - 1 - i];
    for (int j = 0; j < COLS; j++)
      a[i][j] = 0.1 * (i + 1) - 0.2 * j + 0.05 * i * j;
  }
  const double v[COLS] = {1.0, -2.0, 0.5, 0.25};
  __enzyme_autodiff((void *)quad, enzyme_dup, a, da, enzyme_const, v, enzyme_const, ROWS,
                    enzyme_const, COLS);
  for (int i = 0; i < ROWS; i++) {
    double r = 0;
    for (int j = 0; j < COLS; j++)
      r += a[i][j] * v[j];
    for (int j = 0; j < COLS; j++) {
      char what[48];
      snprintf(what, sizeof what, "quad: da[%d][%d]", i, j);
      check_close(what, da[i][j], 2 * r * v[j], 1e-13);
    }
  }
  /* Forward: tangent of row 1 only, along v: d = 2 r_1 (v . v). */
  double zero_rows[ROWS][COLS] = {{0}};
  double *ta[ROWS] = {zero_rows[0], zero_rows[1], zero_rows[2]};
  for (int j = 0; j < COLS; j++)
    zero_rows[1][j] = v[j];
  double r1 = 0, vv = 0;
  for (int j = 0; j < COLS; j++) {
    r1 += a[1][j] * v[j];
    vv += v[j] * v[j];
  }
  check_close("quad: forward", __enzyme_fwddiff((void *)quad, enzyme_dup, a, ta, enzyme_const, v,
                                                enzyme_const, ROWS, enzyme_const, COLS),
              2 * r1 * vv, 1e-13);

  /* The list and its shadow, on the heap. */
  struct node *nodes = calloc(LEN, sizeof *nodes), *dnodes = calloc(LEN, sizeof *dnodes);
  for (int k = 0; k < LEN; k++) {
    nodes[k].value = 0.3 + 0.4 * k;
    nodes[k].tag = k != 2;
    nodes[k].next = k + 1 < LEN ? &nodes[k + 1] : NULL;
    dnodes[k].next = k + 1 < LEN ? &dnodes[k + 1] : NULL;
  }
  __enzyme_autodiff((void *)walk, enzyme_dup, nodes, dnodes);
  /* acc = sum over tagged k of 0.5^(number of tagged nodes after k) g(v_k) */
  for (int k = 0; k < LEN; k++) {
    double x = nodes[k].value, want = 0;
    if (nodes[k].tag) {
      int later = 0;
      for (int m = k + 1; m < LEN; m++)
        later += nodes[m].tag;
      want = pow(0.5, later) * (sin(x) + x * cos(x));
    }
    char what[48];
    snprintf(what, sizeof what, "walk: dvalue[%d]", k);
    check_close(what, dnodes[k].value, want, 1e-13);
  }
  /* Forward: a tangent of 1 on every value. */
  for (int k = 0; k < LEN; k++)
    dnodes[k].value = 1.0;
  double want = 0, got = __enzyme_fwddiff((void *)walk, enzyme_dup, nodes, dnodes);
  for (int k = 0; k < LEN; k++) {
    double x = nodes[k].value;
    want = nodes[k].tag ? want * 0.5 + sin(x) + x * cos(x) : want;
  }
  check_close("walk: forward", got, want, 1e-13);
  free(nodes);
  free(dnodes);
  return check_exit();
}
