/* loglik_grad.h: the analytic gradient of the seed's log-likelihood
 * (examples/hmc-loglik-kernel.cu) at one theta = (mu1, mu2, s1, s2), for
 * the tests that check Kinase's against it (C and CUDA C++). */
#ifndef KINASE_TEST_LOGLIK_GRAD_H
#define KINASE_TEST_LOGLIK_GRAD_H

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
