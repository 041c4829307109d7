/* loglik_grad.h: the seed's log-likelihood (examples/hmc-loglik-kernel.cu)
 * for the tests that differentiate it (C and CUDA C++): their inputs, n data
 * points (x, y) and b parameter vectors theta = (mu1, mu2, s1, s2), and the
 * analytic gradient at one theta, which Kinase's is checked against. */
#ifndef KINASE_TEST_LOGLIK_GRAD_H
#define KINASE_TEST_LOGLIK_GRAD_H

#include <math.h>

static inline void loglik_data(float *x, int n) {
  for (int k = 0; k < n; k++) {
    x[2 * k] = sinf(0.37f * k);
    x[2 * k + 1] = 0.5f * cosf(0.11f * k) - 0.2f;
  }
}

static inline void loglik_thetas(float *th, int b) {
  for (int i = 0; i < b; i++) {
    th[4 * i + 0] = 0.1f * (i % 7) - 0.3f;
    th[4 * i + 1] = 0.05f * (i % 5);
    th[4 * i + 2] = 0.8f + 0.01f * (i % 13);
    th[4 * i + 3] = 1.1f - 0.02f * (i % 11);
  }
}

static inline void loglik_gradient(const float *theta, const float *x, int n, double g[4]) {
  double mu1 = theta[0], mu2 = theta[1], s1 = theta[2], s2 = theta[3];
  g[0] = g[1] = 0;
  g[2] = -n / s1;
  g[3] = -n / s2;
  for (int k = 0; k < n; k++) {
    double e1 = x[2 * k] - mu1, e2 = x[2 * k + 1] - mu2;
    g[0] += e1 / (s1 * s1);
    g[1] += e2 / (s2 * s2);
    g[2] += e1 * e1 / (s1 * s1 * s1);
    g[3] += e2 * e2 / (s2 * s2 * s2);
  }
}

#endif
