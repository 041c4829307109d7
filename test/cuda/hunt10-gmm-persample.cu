// A batched Gaussian-mixture log-likelihood as a statistician writes it:
// B parameter sets of K components (mixing logits, means, log standard
// deviations), one thread per set, each summing over the shared data the
// log of its mixture through a stable log-sum-exp held in a per-thread
// array; the component density is a functor passed to a kernel template.
// The data is read with __ldg and passed enzyme_const, the result
// enzyme_dupnoneed: per-sample gradients d logL_b / d theta_b, checked
// against central differences of a double-precision host copy, and forward
// mode along a direction against the same.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
// RUN: not grep -E "kwhy.*mixture_loglik" %t.O0.ptx %t.ptx

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { K = 3, P = 3 * K, B = 200, N = 150 };

struct LogNormal {
  __device__ float operator()(float x, float mu, float log_sigma) const {
    float z = (x - mu) * expf(-log_sigma);
    return -0.5f * z * z - log_sigma - 0.91893853f;
  }
};

// theta_b = [logits(K), means(K), log sigmas(K)].
template <int NC, class Density>
__global__ void mixture_loglik(float *logL, const float *theta, const float *x, int n, int b,
                               Density density) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= b)
    return;
  const float *th = theta + (size_t)s * 3 * NC;
  float lognorm = -INFINITY;
  for (int k = 0; k < NC; k++)
    lognorm = fmaxf(lognorm, th[k]);
  float z = 0.0f;
  for (int k = 0; k < NC; k++)
    z += expf(th[k] - lognorm);
  lognorm += logf(z);
  float total = 0.0f;
  for (int i = 0; i < n; i++) {
    float xi = __ldg(&x[i]);
    float terms[NC];
    float m = -INFINITY;
    for (int k = 0; k < NC; k++) {
      terms[k] = th[k] - lognorm + density(xi, th[NC + k], th[2 * NC + k]);
      m = fmaxf(m, terms[k]);
    }
    float acc = 0.0f;
    for (int k = 0; k < NC; k++)
      acc += expf(terms[k] - m);
    total += m + logf(acc);
  }
  logL[s] = total;
}

void batch_loglik(float *logL, const float *theta, const float *x, int n, int b) {
  mixture_loglik<K><<<(b + 63) / 64, 64>>>(logL, theta, x, n, b, LogNormal{});
}

static double host_loglik(const double *th, const std::vector<double> &x) {
  double mx = -INFINITY, z = 0;
  for (int k = 0; k < K; k++) mx = fmax(mx, th[k]);
  for (int k = 0; k < K; k++) z += exp(th[k] - mx);
  double lognorm = mx + log(z), total = 0;
  for (double xi : x) {
    double acc = 0;
    for (int k = 0; k < K; k++) {
      double zz = (xi - th[K + k]) / exp(th[2 * K + k]);
      acc += exp(th[k] - lognorm - 0.5 * zz * zz - th[2 * K + k] - 0.91893853320467274);
    }
    total += log(acc);
  }
  return total;
}

int main() {
  require_device();
  std::vector<float> theta(B * P), x(N), dir(B * P);
  std::vector<double> xd(N);
  for (int i = 0; i < N; i++)
    xd[i] = x[i] = (float)(2.5 * sin(0.37 * i) + 0.3 * cos(1.3 * i));
  for (int s = 0; s < B; s++)
    for (int k = 0; k < K; k++) {
      theta[s * P + k] = 0.2f * sinf(s + k);
      theta[s * P + K + k] = -1.5f + 1.5f * k + 0.1f * cosf(0.5f * s);
      theta[s * P + 2 * K + k] = -0.2f + 0.1f * k + 0.05f * sinf(0.3f * s + k);
      for (int j = 0; j < 3; j++)
        dir[s * P + j * K + k] = 0.5f * cosf(0.7f * s + j + 2 * k);
    }
  float *d_theta = to_device(theta), *d_x = to_device(x), *d_dir = to_device(dir);
  float *d_logL = device_alloc<float>(B), *d_dlogL = device_alloc<float>(B);
  float *d_dtheta = device_alloc<float>(B * P), *d_tan = device_alloc<float>(B);
  std::vector<float> ones(B, 1.0f);
  check_cuda(cudaMemcpy(d_dlogL, ones.data(), B * sizeof(float), cudaMemcpyHostToDevice), "seed");
  check_cuda(cudaMemset(d_dtheta, 0, B * P * sizeof(float)), "memset");
  __enzyme_autodiff((void *)batch_loglik, enzyme_dupnoneed, d_logL, d_dlogL, enzyme_dup, d_theta,
                    d_dtheta, enzyme_const, d_x, enzyme_const, N, enzyme_const, B);
  check_kernel("gradient of batch_loglik");
  std::vector<float> dtheta(B * P), logL(B), tan(B);
  from_device(dtheta, d_dtheta);
  __enzyme_fwddiff((void *)batch_loglik, enzyme_dup, d_logL, d_tan, enzyme_dup, d_theta, d_dir,
                   enzyme_const, d_x, enzyme_const, N, enzyme_const, B);
  check_kernel("tangent of batch_loglik");
  from_device(logL, d_logL);
  from_device(tan, d_tan);
  const double h = 1e-5;
  for (int s = 0; s < B; s++) {
    double th[P];
    for (int j = 0; j < P; j++) th[j] = theta[s * P + j];
    double value = host_loglik(th, xd), directional = 0;
    check_close(logL[s], value, 1e-4, "logL[%d]", s);
    for (int j = 0; j < P; j++) {
      double save = th[j];
      th[j] = save + h;
      double up = host_loglik(th, xd);
      th[j] = save - h;
      double down = host_loglik(th, xd);
      th[j] = save;
      double fd = (up - down) / (2 * h);
      directional += fd * dir[s * P + j];
      check_close(dtheta[s * P + j], fd, 2e-3, "dlogL[%d]/dtheta[%d]", s, j);
    }
    check_close(tan[s], directional, 2e-3, "tangent[%d]", s);
  }
  device_free_all();
  return check_exit();
}
