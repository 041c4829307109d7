// The seed's users' program as they write it: per-sample log-likelihoods of
// a batch of parameter vectors held in a host std::vector (requested
// enzyme_dup through the vector itself: &th, &dth), the data on the device
// enzyme_const, RAII device buffers whose methods copy both ways, a
// warp-shuffle sum and a templated shared-memory tree sum of the results
// added into one buffer, read back into std::vectors and summed with a
// range-for loop against const weights.
//   loss = sum_i logL_i + 1e-3 sum_i logL_i^2 + sum_i w_i logL_i
// Per-sample gradients: dloss/dtheta_i = (1 + 2e-3 logL_i + w_i) grad logL_i,
// against the analytic gradient.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: not grep -E "kwhy" %t.O0.ptx %t.ptx
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe

#include <kinase.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <vector>
#include "cuda_check.h"
#include "loglik_grad.h"
#include "loglik_one.cuh"

template <typename T> class DeviceBuffer {
public:
  explicit DeviceBuffer(size_t n) : n_(n) { cudaMalloc(&p_, n * sizeof(T)); }
  ~DeviceBuffer() { cudaFree(p_); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  T *get() const { return p_; }
  size_t size() const { return n_; }
  void upload(const std::vector<T> &h) { cudaMemcpy(p_, h.data(), n_ * sizeof(T), cudaMemcpyHostToDevice); }
  void download(std::vector<T> &h) const { cudaMemcpy(h.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost); }

private:
  T *p_ = nullptr;
  size_t n_;
};

__global__ void loglik_batch(float *logL, const float *th, const float *x, int n, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < b)
    loglik_one(&logL[i], th + 4 * i, x, n);
}

__inline__ __device__ float warp_sum(float v) {
  for (int off = 16; off > 0; off /= 2)
    v += __shfl_down_sync(0xffffffff, v, off);
  return v;
}

__global__ void total_warp(float *total, const float *logL, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < b ? logL[i] : 0.f;
  v = warp_sum(v);
  if ((threadIdx.x & 31) == 0)
    atomicAdd(total, v);
}

template <int BLOCK> __global__ void total_shared(float *total, const float *logL, int b) {
  __shared__ float s[BLOCK];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  s[threadIdx.x] = i < b ? logL[i] * logL[i] : 0.f;
  __syncthreads();
  for (int k = BLOCK / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(total, s[0]);
}

// loss = sum_i logL_i + 1e-3 sum_i logL_i^2 + sum_i w_i logL_i (host side)
float loss(const std::vector<float> &thetas, const float *d_x, const std::vector<float> &w, int n, int b) {
  DeviceBuffer<float> d_th(thetas.size()), d_logL(b), d_tot(2);
  d_th.upload(thetas);
  cudaMemset(d_tot.get(), 0, 2 * sizeof(float));
  loglik_batch<<<(b + 127) / 128, 128>>>(d_logL.get(), d_th.get(), d_x, n, b);
  total_warp<<<(b + 127) / 128, 128>>>(d_tot.get(), d_logL.get(), b);
  total_shared<128><<<(b + 127) / 128, 128>>>(d_tot.get() + 1, d_logL.get(), b);
  std::vector<float> tot(2), logL(b);
  d_tot.download(tot);
  d_logL.download(logL);
  float s = tot[0] + 1e-3f * tot[1];
  int i = 0;
  for (float l : logL)
    s += w[i++] * l;
  return s;
}

int main() {
  require_device();
  const int B = 300, N = 40;
  std::vector<float> th(4 * B), dth(4 * B, 0.f), x(2 * N), w(B);
  loglik_data(x.data(), N);
  loglik_thetas(th.data(), B);
  for (int i = 0; i < B; i++)
    w[i] = 0.01f * (i % 3);
  float *d_x = to_device(x);
  __enzyme_autodiff((void *)loss, enzyme_dup, &th, &dth, enzyme_const, d_x, enzyme_const, &w,
                    enzyme_const, N, enzyme_const, B);
  check_kernel("gradient");
  for (int i = 0; i < B; i++) {
    double g[4], l = 0;
    loglik_gradient(&th[4 * i], x.data(), N, g);
    {
      const float *t = &th[4 * i];
      double q = 0;
      for (int k = 0; k < N; k++) {
        double d1 = (x[2 * k] - t[0]) / t[2], d2 = (x[2 * k + 1] - t[1]) / t[3];
        q += d1 * d1 + d2 * d2;
      }
      l = -0.5 * q - N * (log((double)t[2]) + log((double)t[3])) - N * log(2.0 * 3.14159265);
    }
    double scale = 1.0 + 2e-3 * l + w[i];
    for (int k = 0; k < 4; k++)
      check_close(dth[4 * i + k], scale * g[k], 2e-3, "dloss/dtheta[%d].%d", i, k);
  }
  device_free_all();
  return check_exit();
}
