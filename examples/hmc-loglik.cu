/* Hamiltonian Monte Carlo for a batch of chains, with per-sample gradients
 * of a CUDA log-likelihood computed by Kinase from the host function that
 * launches the kernel.
 *
 * Each of B chains holds a parameter vector theta = (mu1, mu2, s1, s2) of a
 * diagonal Gaussian; the data x (N two-dimensional points) are shared and
 * Const. compute_logLs launches one thread per chain. One request,
 *
 *   __enzyme_autodiff(compute_logLs, enzyme_dupnoneed, logLs, dlogLs,
 *                     enzyme_dup, thetas, dthetas, enzyme_const, x, N, B)
 *
 * gives all B gradients at once, on the GPU; the leapfrog integrator and the
 * Metropolis step run on the host here to keep the example short.
 *
 *   build/bin/kinase-cc -O2 -x cuda --cuda-gpu-arch=sm_90 examples/hmc-loglik.cu -o hmc
 *   ./hmc          (prints the acceptance rate and the posterior means)
 */
#include <kinase.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

enum { P = 4, B = 1024, N = 200, STEPS = 200, LEAPFROG = 10 };

__global__ void loglik(float *logL, const float *th, const float *x, int n, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= b)
    return;
  const float *t = th + P * i;
  float mu1 = t[0], mu2 = t[1], s1 = t[2], s2 = t[3];
  float is1 = 1.f / s1, is2 = 1.f / s2, q = 0.f;
  for (int k = 0; k < n; k++) {
    float d1 = (x[2 * k] - mu1) * is1, d2 = (x[2 * k + 1] - mu2) * is2;
    q += d1 * d1 + d2 * d2;
  }
  logL[i] = -0.5f * q - n * (logf(s1) + logf(s2));
}

void compute_logLs(float *logLs, const float *thetas, const float *x, int n, int b) {
  loglik<<<(b + 255) / 256, 256>>>(logLs, thetas, x, n, b);
}

static void check(cudaError_t err, const char *what) {
  if (err != cudaSuccess) {
    fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(err));
    exit(1);
  }
}

struct Model {
  float *logL, *dlogL, *theta, *dtheta, *x;
  std::vector<float> ones = std::vector<float>(B, 1.0f);

  explicit Model(const std::vector<float> &data) {
    check(cudaMalloc(&logL, B * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&dlogL, B * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&theta, B * P * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&dtheta, B * P * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&x, data.size() * sizeof(float)), "cudaMalloc");
    check(cudaMemcpy(x, data.data(), data.size() * sizeof(float), cudaMemcpyHostToDevice), "copy");
  }
  ~Model() {
    for (float *p : {logL, dlogL, theta, dtheta, x})
      cudaFree(p);
  }

  /* log-likelihoods of all chains at th. */
  std::vector<float> values(const std::vector<float> &th) {
    std::vector<float> out(B);
    check(cudaMemcpy(theta, th.data(), th.size() * sizeof(float), cudaMemcpyHostToDevice), "copy");
    compute_logLs(logL, theta, x, N, B);
    check(cudaMemcpy(out.data(), logL, B * sizeof(float), cudaMemcpyDeviceToHost), "copy");
    return out;
  }

  /* Their gradients, one per chain. */
  std::vector<float> gradients(const std::vector<float> &th) {
    std::vector<float> out(th.size());
    check(cudaMemcpy(theta, th.data(), th.size() * sizeof(float), cudaMemcpyHostToDevice), "copy");
    check(cudaMemset(dtheta, 0, th.size() * sizeof(float)), "memset");
    check(cudaMemcpy(dlogL, ones.data(), B * sizeof(float), cudaMemcpyHostToDevice), "copy");
    __enzyme_autodiff((void *)compute_logLs, enzyme_dupnoneed, logL, dlogL, enzyme_dup, theta,
                      dtheta, enzyme_const, x, N, B);
    check(cudaMemcpy(out.data(), dtheta, th.size() * sizeof(float), cudaMemcpyDeviceToHost), "copy");
    return out;
  }
};

static float normal(void) {
  float u = (rand() + 1.0f) / ((float)RAND_MAX + 2.0f), v = (rand() + 1.0f) / ((float)RAND_MAX + 2.0f);
  return sqrtf(-2.0f * logf(u)) * cosf(6.2831853f * v);
}

int main(void) {
  std::vector<float> data(2 * N);
  for (int k = 0; k < N; k++) {
    data[2 * k] = 1.0f + 0.5f * normal();
    data[2 * k + 1] = -0.5f + 2.0f * normal();
  }
  Model model(data);
  std::vector<float> th(B * P);
  for (int i = 0; i < B; i++) {
    th[P * i] = th[P * i + 1] = 0.0f;
    th[P * i + 2] = th[P * i + 3] = 1.0f;
  }
  const float eps = 0.01f;
  long accepted = 0;
  std::vector<double> mean(P, 0.0);
  for (int step = 0; step < STEPS; step++) {
    std::vector<float> mom(B * P), q = th;
    for (float &m : mom)
      m = normal();
    std::vector<float> start = model.values(q), g = model.gradients(q), p = mom;
    for (int l = 0; l < LEAPFROG; l++) {
      for (size_t j = 0; j < q.size(); j++)
        p[j] += 0.5f * eps * g[j];
      for (size_t j = 0; j < q.size(); j++)
        q[j] += eps * p[j];
      for (int i = 0; i < B; i++) /* the scales stay positive: reflect at 0 */
        for (int s = 2; s < 4; s++)
          if (q[P * i + s] < 0) {
            q[P * i + s] = -q[P * i + s];
            p[P * i + s] = -p[P * i + s];
          }
      g = model.gradients(q);
      for (size_t j = 0; j < q.size(); j++)
        p[j] += 0.5f * eps * g[j];
    }
    std::vector<float> end = model.values(q);
    for (int i = 0; i < B; i++) {
      double h0 = -start[i], h1 = -end[i];
      for (int j = 0; j < P; j++) {
        h0 += 0.5 * mom[P * i + j] * mom[P * i + j];
        h1 += 0.5 * p[P * i + j] * p[P * i + j];
      }
      if (log((rand() + 1.0) / (RAND_MAX + 2.0)) < h0 - h1) {
        accepted++;
        for (int j = 0; j < P; j++)
          th[P * i + j] = q[P * i + j];
      }
      if (step >= STEPS / 2)
        for (int j = 0; j < P; j++)
          mean[j] += th[P * i + j] / ((double)B * (STEPS - STEPS / 2));
    }
  }
  printf("acceptance rate %.2f\n", (double)accepted / ((double)B * STEPS));
  printf("posterior means: mu1 %.3f  mu2 %.3f  s1 %.3f  s2 %.3f\n", mean[0], mean[1], mean[2],
         mean[3]);
  printf("(the data were drawn with mu = (1, -0.5), s = (0.5, 2))\n");
  return 0;
}
