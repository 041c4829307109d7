// RUN: %check-c %s %t
// BLAS-shaped routines defined in the program with the Fortran calling
// convention (every argument by pointer: transposition flags as char *,
// sizes as int *, scalars as double *), called with file-scope static
// constants, and a cblas-style dot product. The routines carry BLAS names,
// so a rule table keyed on names must not take them for the library ones
// with a different meaning. Reverse mode against central differences, and
// forward mode.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

/* C = alpha op(A) op(B) + beta C, column-major */
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const double *alpha,
            const double *A, const int *lda, const double *B, const int *ldb, const double *beta, double *C,
            const int *ldc)
{
  for (int j = 0; j < *n; j++)
    for (int i = 0; i < *m; i++) {
      double s = 0;
      for (int l = 0; l < *k; l++) {
        double a = (*ta == 'N') ? A[i + l * *lda] : A[l + i * *lda];
        double b = (*tb == 'N') ? B[l + j * *ldb] : B[j + l * *ldb];
        s += a * b;
      }
      C[i + j * *ldc] = *alpha * s + (*beta == 0.0 ? 0.0 : *beta * C[i + j * *ldc]);
    }
}

double cblas_ddot(int n, const double *x, int incx, const double *y, int incy)
{
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i * incx] * y[i * incy];
  return s;
}

enum { D = 4 };
static char NT = 'N', TT = 'T';
static int four = D;
static double one = 1.0, zero = 0.0;

/* sum of (A A^T) weighted, through the routine */
double simulate(double *A)
{
  double *out = malloc(sizeof(double) * D * D);
  dgemm_(&NT, &TT, &four, &four, &four, &one, A, &four, A, &four, &zero, out, &four);
  double r = cblas_ddot(D * D, out, 1, A, 1) + out[1] * out[2];
  free(out);
  return r;
}

static double A0[D * D];

static double fd(int k)
{
  double A[D * D], h = 1e-6;
  for (int i = 0; i < D * D; i++)
    A[i] = A0[i];
  A[k] += h;
  double p = simulate(A);
  A[k] = A0[k] - h;
  double q = simulate(A);
  return (p - q) / (2 * h);
}

int main(void)
{
  char what[64];
  for (int i = 0; i < D * D; i++)
    A0[i] = (i % 5 == 0) ? 0.3 : 0.1 + 0.01 * i;
  double A[D * D], dA[D * D] = {0};
  for (int i = 0; i < D * D; i++)
    A[i] = A0[i];
  __enzyme_autodiff((void *)simulate, enzyme_dup, A, dA);
  for (int k = 0; k < D * D; k++) {
    snprintf(what, sizeof what, "dA[%d]", k);
    check_close(what, dA[k], fd(k), 1e-7);
  }
  double tA[D * D] = {0};
  tA[5] = 1.0;
  check_close("forward along A[5]", __enzyme_fwddiff((void *)simulate, enzyme_dup, A, tA), fd(5), 1e-7);

  double x[3] = {1, 2, 3}, y[6] = {1, -1, 2, -2, 3, -3}, dx[3] = {0}, dy[6] = {0};
  __enzyme_autodiff((void *)cblas_ddot, enzyme_const, 3, enzyme_dup, x, dx, enzyme_const, 1, enzyme_dup, y, dy,
                    enzyme_const, 2);
  for (int i = 0; i < 3; i++) {
    snprintf(what, sizeof what, "strided dot dx[%d]", i);
    check_close(what, dx[i], y[2 * i], 1e-14);
    snprintf(what, sizeof what, "strided dot dy[%d]", 2 * i);
    check_close(what, dy[2 * i], x[i], 1e-14);
    snprintf(what, sizeof what, "strided dot dy[%d]", 2 * i + 1);
    check_close(what, dy[2 * i + 1], 0.0, 0.0);
  }
  return check_exit();
}
