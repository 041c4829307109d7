/* loglik_one.cuh: the seed's per-sample log-likelihood as its users write
 * it, with an output pointer (CUDA tests that differentiate it per thread,
 * and bench/cuda-host-loglik.cu, which times it; loglik_grad.h has its
 * analytic gradient). */
#ifndef KINASE_TEST_LOGLIK_ONE_CUH
#define KINASE_TEST_LOGLIK_ONE_CUH

#include <math.h>

__device__ void loglik_one(float *logL, const float *th, const float *x, int n) {
  float mu1 = th[0], mu2 = th[1], s1 = th[2], s2 = th[3];
  float is1 = 1.f / s1, is2 = 1.f / s2, q = 0.f;
  for (int k = 0; k < n; k++) {
    float d1 = (x[2 * k] - mu1) * is1, d2 = (x[2 * k + 1] - mu2) * is2;
    q += d1 * d1 + d2 * d2;
  }
  *logL = -0.5f * q - n * (logf(s1) + logf(s2)) - n * logf(2.f * 3.14159265f);
}

#endif
