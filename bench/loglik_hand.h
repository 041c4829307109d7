// The seed workload's inputs and its hand-written analytic gradient kernel,
// shared by the benchmark that compares Kinase with it (cuda-host-loglik.cu,
// built by kinase-cc) and the one that builds it with nvcc
// (nvcc-hand-loglik.cu).
#ifndef KINASE_BENCH_LOGLIK_HAND_H
#define KINASE_BENCH_LOGLIK_HAND_H

#include <math.h>
#include <stddef.h>
#include <vector>

enum { P = 4, BLOCK = 256 };

/* The seed's sizes (B parameter vectors, N two-dimensional data points). */
static const int loglik_sizes[][2] = {{1 << 20, 1000}, {1 << 24, 16}, {1 << 16, 100000}};

/* d/dmu = sum e / s^2, d/ds = sum e^2 / s^3 - n / s. */
__global__ void hand_gradient(float *dth, const float *th, const float *x, int n, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= b)
    return;
  const float *t = th + P * i;
  float mu1 = t[0], mu2 = t[1], is1 = 1.f / t[2], is2 = 1.f / t[3];
  float a1 = 0, a2 = 0, c1 = 0, c2 = 0;
  for (int k = 0; k < n; k++) {
    float e1 = x[2 * k] - mu1, e2 = x[2 * k + 1] - mu2;
    a1 += e1;
    a2 += e2;
    c1 += e1 * e1;
    c2 += e2 * e2;
  }
  float *d = dth + P * i;
  d[0] = a1 * is1 * is1;
  d[1] = a2 * is2 * is2;
  d[2] = c1 * is1 * is1 * is1 - n * is1;
  d[3] = c2 * is2 * is2 * is2 - n * is2;
}

/* The data and the parameter vectors, the same in every benchmark. */
static void loglik_inputs(std::vector<float> &th, std::vector<float> &x, int b, int n) {
  th.assign((size_t)b * P, 0.f);
  x.assign(2 * (size_t)n, 0.f);
  for (int k = 0; k < n; k++) {
    x[2 * k] = sinf(0.37f * k);
    x[2 * k + 1] = 0.5f * cosf(0.11f * k) - 0.2f;
  }
  for (int i = 0; i < b; i++) {
    th[(size_t)P * i] = 0.1f * (i % 7) - 0.3f;
    th[(size_t)P * i + 1] = 0.05f * (i % 5);
    th[(size_t)P * i + 2] = 0.8f + 0.01f * (i % 13);
    th[(size_t)P * i + 3] = 1.1f - 0.02f * (i % 11);
  }
}

#endif
