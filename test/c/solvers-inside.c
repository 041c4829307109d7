/* Probe kept as a test: solvers written inside the differentiated function
 * (RK4 on a two-state ODE with a parameter pointer, Cholesky factor and
 * solve on the heap, LU with partial pivoting on a local copy made by
 * memcpy, logsumexp/softmax with fmax, a CSR mat-vec with Const index
 * arrays, gradient descent run to convergence), each checked against
 * central differences. Passed at -O0 and -O2 when written. */
// RUN: %check-c %s %t
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
/* RK4 on y' = -k y + sin(t), returns y(T) */
static void rhs(double t, const double *y, double *dy, const double *p) {
  dy[0] = -p[0] * y[0] + sin(t) * y[1];
  dy[1] = p[1] * y[0] - y[1] * y[1];
}
static double rk4(const double *p, const double *y0, int steps) {
  double y[2] = {y0[0], y0[1]}, k1[2], k2[2], k3[2], k4[2], tmp[2];
  double h = 1.0 / steps, t = 0;
  for (int s = 0; s < steps; s++) {
    rhs(t, y, k1, p);
    for (int i = 0; i < 2; i++) tmp[i] = y[i] + 0.5 * h * k1[i];
    rhs(t + 0.5 * h, tmp, k2, p);
    for (int i = 0; i < 2; i++) tmp[i] = y[i] + 0.5 * h * k2[i];
    rhs(t + 0.5 * h, tmp, k3, p);
    for (int i = 0; i < 2; i++) tmp[i] = y[i] + h * k3[i];
    rhs(t + h, tmp, k4, p);
    for (int i = 0; i < 2; i++) y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    t += h;
  }
  return y[0] + y[1];
}
/* Cholesky solve of A x = b, A = M M^T + n I built from m; returns sum x */
static double chol(const double *m, const double *b, int n) {
  double *A = malloc(n * n * sizeof(double)), *L = calloc(n * n, sizeof(double)), *x = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) {
    double s = i == j ? n : 0;
    for (int k = 0; k < n; k++) s += m[i * n + k] * m[j * n + k];
    A[i * n + j] = s;
  }
  for (int j = 0; j < n; j++) {
    double s = A[j * n + j];
    for (int k = 0; k < j; k++) s -= L[j * n + k] * L[j * n + k];
    L[j * n + j] = sqrt(s);
    for (int i = j + 1; i < n; i++) {
      double t = A[i * n + j];
      for (int k = 0; k < j; k++) t -= L[i * n + k] * L[j * n + k];
      L[i * n + j] = t / L[j * n + j];
    }
  }
  for (int i = 0; i < n; i++) { double s = b[i]; for (int k = 0; k < i; k++) s -= L[i * n + k] * x[k]; x[i] = s / L[i * n + i]; }
  for (int i = n - 1; i >= 0; i--) { double s = x[i]; for (int k = i + 1; k < n; k++) s -= L[k * n + i] * x[k]; x[i] = s / L[i * n + i]; }
  double r = 0; for (int i = 0; i < n; i++) r += x[i] * (i + 1);
  free(A); free(L); free(x);
  return r;
}
/* LU with partial pivoting, determinant */
static double lu_det(const double *a0, int n) {
  double a[16]; int piv_sign = 1;
  memcpy(a, a0, n * n * sizeof(double));
  for (int k = 0; k < n; k++) {
    int p = k; for (int i = k + 1; i < n; i++) if (fabs(a[i * n + k]) > fabs(a[p * n + k])) p = i;
    if (p != k) { for (int j = 0; j < n; j++) { double t = a[k * n + j]; a[k * n + j] = a[p * n + j]; a[p * n + j] = t; } piv_sign = -piv_sign; }
    for (int i = k + 1; i < n; i++) { double f = a[i * n + k] / a[k * n + k]; for (int j = k; j < n; j++) a[i * n + j] -= f * a[k * n + j]; }
  }
  double d = piv_sign; for (int i = 0; i < n; i++) d *= a[i * n + i];
  return d;
}
static double logsumexp_softmax(const double *x, int n) {
  double m = x[0]; for (int i = 1; i < n; i++) m = fmax(m, x[i]);
  double s = 0; for (int i = 0; i < n; i++) s += exp(x[i] - m);
  double lse = m + log(s);
  double r = 0; for (int i = 0; i < n; i++) r += exp(x[i] - lse) * (i + 1);
  return lse + r;
}
static double csr(const double *val, const int *col, const int *rowp, const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) { double y = 0; for (int k = rowp[i]; k < rowp[i + 1]; k++) y += val[k] * x[col[k]]; s += y * y; }
  return s;
}
/* gradient descent inside the function: minimise (w - a)^2 + w^4/4 with 50 steps; returns final w */
static double opt(double a) {
  double w = 0;
  for (int it = 0; it < 50; it++) { double g = 2 * (w - a) + w * w * w; w -= 0.1 * g; }
  return w;
}
static const double *g_p2, *g_p3; static const int *g_i1, *g_i2;
static void grad_check(const char *what, double (*f)(const double *), double *x, int n, double *d) {
  for (int i = 0; i < n; i++) {
    double h = 1e-6 * fmax(1, fabs(x[i])), xi = x[i];
    x[i] = xi + h; double fp = f(x); x[i] = xi - h; double fm = f(x); x[i] = xi;
    check_close(what, d[i], (fp - fm) / (2 * h), 1e-5);
  }
}
static double w_rk4(const double *p) { return rk4(p, g_p2, 20); }
static double w_chol(const double *m) { return chol(m, g_p2, 3); }
static double w_lu(const double *a) { return lu_det(a, 4); }
static double w_lse(const double *x) { return logsumexp_softmax(x, 5); }
static double w_csr(const double *v) { return csr(v, g_i1, g_i2, g_p3, 3); }
int main(void) {
  double p[2] = {0.7, 0.3}, y0[2] = {1.0, 0.5}, dp[2] = {0}, dy0[2] = {0};
  __enzyme_autodiff((void *)rk4, enzyme_dup, p, dp, enzyme_dup, y0, dy0, enzyme_const, 20);
  g_p2 = y0; grad_check("rk4", w_rk4, p, 2, dp);
  double m[9] = {1, 0.2, 0.3, -0.4, 1.1, 0.5, 0.2, 0.1, 0.9}, b[3] = {1, 2, 3}, dm[9] = {0}, db[3] = {0};
  __enzyme_autodiff((void *)chol, enzyme_dup, m, dm, enzyme_dup, b, db, enzyme_const, 3);
  g_p2 = b; grad_check("chol", w_chol, m, 9, dm);
  double a[16] = {0.1, 2, 0.3, 0.4, 1, 0.2, 0.7, 0.1, 0.5, 0.6, 3, 0.2, 0.3, 0.1, 0.2, 2.5}, da[16] = {0};
  __enzyme_autodiff((void *)lu_det, enzyme_dup, a, da, enzyme_const, 4);
  grad_check("lu", w_lu, a, 16, da);
  double x[5] = {0.1, 2, -1, 0.5, 1.5}, dx[5] = {0};
  __enzyme_autodiff((void *)logsumexp_softmax, enzyme_dup, x, dx, enzyme_const, 5);
  grad_check("lse", w_lse, x, 5, dx);
  double val[5] = {1, 2, 3, 4, 5}, dval[5] = {0}, xx[3] = {0.5, -1, 2};
  int col[5] = {0, 2, 1, 0, 2}, rowp[4] = {0, 2, 3, 5};
  __enzyme_autodiff((void *)csr, enzyme_dup, val, dval, enzyme_const, col, enzyme_const, rowp, enzyme_const, xx, enzyme_const, 3);
  g_i1 = col; g_i2 = rowp; g_p3 = xx; grad_check("csr", w_csr, val, 5, dval);
  double h = 1e-6;
  check_close("opt", __enzyme_autodiff((void *)opt, 0.8), (opt(0.8 + h) - opt(0.8 - h)) / (2 * h), 1e-6);
  check_close("opt fwd", __enzyme_fwddiff((void *)opt, 0.8, 1.0), (opt(0.8 + h) - opt(0.8 - h)) / (2 * h), 1e-6);
  return check_exit();
}
