// Enzyme's enzyme_sparse_accumulate marks the function storing one entry of
// a sparse derivative (__enzyme_todense), which Kinase does not support: a
// derivative that reaches a call of it, or asks for it, is a located error,
// never a derivative computed as if the attribute were not there. A program
// that only carries the attribute compiles (the last RUN line).
// RUN: not %kinase-cc -g -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: %kinase-cc -O0 -DNO_REQUEST -c %s -o /dev/null

typedef struct { long row[64], col[64]; double val[64]; int n; } Triplets;

__attribute__((enzyme_sparse_accumulate)) void push_entry(long row, long col, double val, Triplets *t)
{
  t->row[t->n] = row;
  t->col[t->n] = col;
  t->val[t->n++] = val;
}

double scatter(double x, Triplets *t)
{
  // CHECK-DAG: {{.*}}sparse-accumulate.c:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'scatter': it calls a function marked enzyme_sparse_accumulate: Kinase does not support sparse derivatives (__enzyme_todense) yet
  push_entry(0, 1, x * x, t);
  return x;
}

#ifndef NO_REQUEST
double __enzyme_autodiff(void *, ...);
extern int enzyme_const;
double d_scatter(double x, Triplets *t) { return __enzyme_autodiff((void *)scatter, x, enzyme_const, t); }
// CHECK-DAG: error: kinase: cannot differentiate 'push_entry': it is marked enzyme_sparse_accumulate: Kinase does not support sparse derivatives (__enzyme_todense) yet
double d_push(double v, Triplets *t) { return __enzyme_autodiff((void *)push_entry, 0L, 1L, v, enzyme_const, t); }
#endif
