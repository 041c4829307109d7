// RUN: %check-c %s %t
// The Gaussian negative log-likelihood of a data array (constant) in the
// mean mu and the log of the standard deviation (both active):
//   nll = sum_i (d_i - mu)^2 / (2 s^2) + log s + log(2 pi) / 2,  s = exp(ls)
//   d/dmu = -sum_i (d_i - mu) / s^2,  d/dls = n - sum_i (d_i - mu)^2 / s^2
// Also with the data dup: d/dd_i = (d_i - mu) / s^2.
#include <math.h>
#include <stdio.h>
#include "check.h"

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
typedef struct { double a, b; } Grad2;
Grad2 __enzyme_autodiff_2(void *, ...);
void __enzyme_autodiff_v(void *, ...);

static double nll(const double *data, int n, double mu, double log_sigma)
{
  double sigma = exp(log_sigma), s = 0.0;
  for (int i = 0; i < n; i++) {
    double r = (data[i] - mu) / sigma;
    s += 0.5 * r * r + log_sigma + 0.91893853320467274178; /* log(2 pi) / 2 */
  }
  return s;
}

enum { N = 50 };

int main(void)
{
  double data[N];
  for (int i = 0; i < N; i++)
    data[i] = 1.0 + sin(3.7 * i) * 2.0 + 0.01 * i;
  double mu = 0.8, ls = 0.3, s2 = exp(2 * ls);

  double gmu = 0.0, gls = N;
  for (int i = 0; i < N; i++) {
    gmu -= (data[i] - mu) / s2;
    gls -= (data[i] - mu) * (data[i] - mu) / s2;
  }

  Grad2 g = __enzyme_autodiff_2((void *)nll, enzyme_const, data, N, enzyme_out, mu, enzyme_out, ls);
  check_close("d/dmu", g.a, gmu, 1e-10);
  check_close("d/dlog_sigma", g.b, gls, 1e-10);

  double h = 1e-6;
  check_close("d/dmu vs central difference", g.a,
              (nll(data, N, mu + h, ls) - nll(data, N, mu - h, ls)) / (2 * h), 1e-5);
  check_close("d/dlog_sigma vs central difference", g.b,
              (nll(data, N, mu, ls + h) - nll(data, N, mu, ls - h)) / (2 * h), 1e-5);

  /* At the maximum-likelihood estimate both gradients vanish. */
  double m = 0.0, v = 0.0;
  for (int i = 0; i < N; i++)
    m += data[i];
  m /= N;
  for (int i = 0; i < N; i++)
    v += (data[i] - m) * (data[i] - m);
  v /= N;
  g = __enzyme_autodiff_2((void *)nll, enzyme_const, data, N, m, 0.5 * log(v));
  check_close("d/dmu at the estimate", g.a, 0.0, 1e-10);
  check_close("d/dlog_sigma at the estimate", g.b, 0.0, 1e-10);

  /* The data active too, mu and ls constant. */
  double dd[N] = {0};
  __enzyme_autodiff_v((void *)nll, enzyme_dup, data, dd, N, enzyme_const, mu, enzyme_const, ls);
  for (int i = 0; i < N; i += 7) {
    char what[64];
    snprintf(what, sizeof what, "d/ddata[%d]", i);
    check_close(what, dd[i], (data[i] - mu) / s2, 1e-12);
  }
  return check_exit();
}
