// RUN: %check-c %s %t
// ODE integrators as scientists write them, differentiated with respect to
// the initial state and the parameters, in both modes, against central
// differences:
// - classical RK4 with a fixed number of steps, the right-hand side a
//   function of a parameter struct, the stages in local arrays;
// - Dormand-Prince 5(4) with an adaptive step: the Butcher tableau in
//   static const tables, a data-dependent number of steps, the error
//   estimate deciding with fmax/fmin/pow whether a step is taken;
// - Gauss-Newton fitting of a damped oscillation, its Jacobian built one
//   column per __enzyme_fwddiff call (enzyme_dupnoneed residual) and checked
//   against reverse mode's J^T w.
#include <math.h>
#include <string.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef struct {
  double k, c;
} Oscillator;

static void oscillator(const double *y, double *dy, const Oscillator *p) {
  dy[0] = y[1];
  dy[1] = -p->k * y[0] - p->c * y[1] + 0.1 * sin(y[0]);
}

double rk4(const double *y0, const Oscillator *p, int steps, double T) {
  double y[2] = {y0[0], y0[1]}, h = T / steps;
  for (int s = 0; s < steps; s++) {
    double k1[2], k2[2], k3[2], k4[2], t[2];
    oscillator(y, k1, p);
    for (int i = 0; i < 2; i++)
      t[i] = y[i] + 0.5 * h * k1[i];
    oscillator(t, k2, p);
    for (int i = 0; i < 2; i++)
      t[i] = y[i] + 0.5 * h * k2[i];
    oscillator(t, k3, p);
    for (int i = 0; i < 2; i++)
      t[i] = y[i] + h * k3[i];
    oscillator(t, k4, p);
    for (int i = 0; i < 2; i++)
      y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }
  return y[0] * y[0] + 0.5 * y[1];
}

static const double node[7] = {0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1, 1};
static const double stage[7][6] = {{0},
                                   {1.0 / 5},
                                   {3.0 / 40, 9.0 / 40},
                                   {44.0 / 45, -56.0 / 15, 32.0 / 9},
                                   {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
                                   {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
                                   {35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84}};
static const double fifth[7] = {35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84, 0};
static const double fourth[7] = {5179.0 / 57600,     0,           7571.0 / 16695, 393.0 / 640,
                                 -92097.0 / 339200, 187.0 / 2100, 1.0 / 40};

/* forced: y'' = mu (1 - y^2) y' - y + 0.1 cos t */
static void van_der_pol(double time, const double *y, double *f, double mu) {
  f[0] = y[1];
  f[1] = mu * (1 - y[0] * y[0]) * y[1] - y[0] + 0.1 * cos(time);
}

double dormand_prince(const double *y0, const double *mu, double T, double tol) {
  double y[2] = {y0[0], y0[1]}, k[7][2], at[2], t = 0, h = 0.01;
  for (int taken = 0; t < T && taken < 100000;) {
    if (t + h > T)
      h = T - t;
    for (int s = 0; s < 7; s++) {
      for (int i = 0; i < 2; i++) {
        at[i] = y[i];
        for (int j = 0; j < s; j++)
          at[i] += h * stage[s][j] * k[j][i];
      }
      van_der_pol(t + node[s] * h, at, k[s], *mu);
    }
    double err = 0, next[2];
    for (int i = 0; i < 2; i++) {
      double s5 = 0, s4 = 0;
      for (int s = 0; s < 7; s++) {
        s5 += fifth[s] * k[s][i];
        s4 += fourth[s] * k[s][i];
      }
      next[i] = y[i] + h * s5;
      double e = h * (s5 - s4) / (tol + tol * fmax(fabs(y[i]), fabs(next[i])));
      err += e * e;
    }
    err = sqrt(err / 2);
    if (err <= 1) {
      t += h;
      memcpy(y, next, sizeof y);
      taken++;
    }
    h *= fmin(5, fmax(0.2, err > 0 ? 0.9 * pow(err, -0.2) : 5));
  }
  return y[0] * y[0] + y[1];
}

typedef struct {
  const double *t, *y;
  int m;
} Data;

void residual(const double *p, double *r, const Data *d) {
  for (int i = 0; i < d->m; i++)
    r[i] = d->y[i] - p[0] * exp(-p[1] * d->t[i]) * cos(p[2] * d->t[i]);
}

static void solve3(double A[3][3], double *b) {
  for (int k = 0; k < 3; k++)
    for (int i = k + 1; i < 3; i++) {
      double f = A[i][k] / A[k][k];
      for (int j = k; j < 3; j++)
        A[i][j] -= f * A[k][j];
      b[i] -= f * b[k];
    }
  for (int i = 2; i >= 0; i--) {
    for (int j = i + 1; j < 3; j++)
      b[i] -= A[i][j] * b[j];
    b[i] /= A[i][i];
  }
}

int main(void) {
  double h = 1e-6;
  double y0[2] = {1.0, 0.0}, dy0[2] = {0};
  Oscillator p = {2.0, 0.3}, dp = {0, 0};
  __enzyme_autodiff((void *)rk4, enzyme_dup, y0, dy0, enzyme_dup, &p, &dp, enzyme_const, 50, enzyme_const, 2.0);
  for (int i = 0; i < 2; i++) {
    double up[2] = {y0[0], y0[1]}, down[2] = {y0[0], y0[1]};
    up[i] += h;
    down[i] -= h;
    check_close("rk4: d/dy0", dy0[i], (rk4(up, &p, 50, 2.0) - rk4(down, &p, 50, 2.0)) / (2 * h), 1e-7);
  }
  Oscillator stiffer = {2.0 + h, 0.3}, softer = {2.0 - h, 0.3};
  check_close("rk4: d/dk", dp.k, (rk4(y0, &stiffer, 50, 2.0) - rk4(y0, &softer, 50, 2.0)) / (2 * h), 1e-7);
  double t0[2] = {1, 0};
  Oscillator tp = {0, 0};
  check_close("rk4: forward",
              __enzyme_fwddiff((void *)rk4, enzyme_dup, y0, t0, enzyme_dup, &p, &tp, enzyme_const, 50,
                               enzyme_const, 2.0),
              dy0[0], 1e-13);

  double v0[2] = {2, 0}, dv0[2] = {0}, mu = 1.0, dmu = 0;
  __enzyme_autodiff((void *)dormand_prince, enzyme_dup, v0, dv0, enzyme_dup, &mu, &dmu, enzyme_const, 3.0,
                    enzyme_const, 1e-8);
  double up[2] = {2 + h, 0}, down[2] = {2 - h, 0}, mu_up = 1 + h, mu_down = 1 - h;
  check_close("Dormand-Prince: d/dy0",
              dv0[0], (dormand_prince(up, &mu, 3, 1e-8) - dormand_prince(down, &mu, 3, 1e-8)) / (2 * h), 1e-5);
  check_close("Dormand-Prince: d/dmu", dmu,
              (dormand_prince(v0, &mu_up, 3, 1e-8) - dormand_prince(v0, &mu_down, 3, 1e-8)) / (2 * h), 1e-5);
  double tv[2] = {1, 0}, tmu = 0;
  check_close("Dormand-Prince: forward",
              __enzyme_fwddiff((void *)dormand_prince, enzyme_dup, v0, tv, enzyme_dup, &mu, &tmu, enzyme_const,
                               3.0, enzyme_const, 1e-8),
              dv0[0], 1e-10);

  enum { M = 12 };
  double t[M], y[M], q[3] = {1.5, 0.5, 1.0}, J[3][M], r[M];
  for (int i = 0; i < M; i++) {
    t[i] = 0.25 * i;
    y[i] = 2.0 * exp(-0.3 * t[i]) * cos(1.1 * t[i]);
  }
  Data d = {t, y, M};
  for (int it = 0; it < 20; it++) {
    for (int k = 0; k < 3; k++) {
      double dq[3] = {0}, unused[M];
      dq[k] = 1;
      __enzyme_fwddiff((void *)residual, enzyme_dup, q, dq, enzyme_dupnoneed, unused, J[k], enzyme_const, &d);
    }
    residual(q, r, &d);
    double A[3][3] = {{0}}, g[3] = {0};
    for (int a = 0; a < 3; a++) {
      for (int b = 0; b < 3; b++)
        for (int i = 0; i < M; i++)
          A[a][b] += J[a][i] * J[b][i];
      for (int i = 0; i < M; i++)
        g[a] -= J[a][i] * r[i];
    }
    solve3(A, g);
    for (int a = 0; a < 3; a++)
      q[a] += g[a];
  }
  check_close("Gauss-Newton: amplitude", q[0], 2.0, 1e-10);
  check_close("Gauss-Newton: damping", q[1], 0.3, 1e-10);
  check_close("Gauss-Newton: frequency", q[2], 1.1, 1e-10);
  double w[M], dq[3] = {0}, out[M], dout[M];
  for (int i = 0; i < M; i++)
    w[i] = dout[i] = sin(i + 1.0);
  __enzyme_autodiff((void *)residual, enzyme_dup, q, dq, enzyme_dup, out, dout, enzyme_const, &d);
  for (int k = 0; k < 3; k++) {
    double dot = 0;
    for (int i = 0; i < M; i++)
      dot += J[k][i] * w[i];
    check_close("Gauss-Newton: J^T w, forward columns against reverse", dq[k], dot, 1e-12);
  }
  return check_exit();
}
