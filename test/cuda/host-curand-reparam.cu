// A reparameterised Monte Carlo loss, as a sampler or a variational fit
// writes it: each thread seeds a curand generator (curand_init skips ahead
// to its subsequence: loops over the generator's integer state), draws
// z ~ N(0, 1) eight times and averages (mu + s z)^2. The gradient with
// respect to (mu, s), from differentiated host code launching the kernel
// and from a device-side request in a kernel, is checked against the same
// draws made by a plain kernel: d/dmu = mean 2 (mu + s z), d/ds = mean
// 2 (mu + s z) z, summed over 65,536 threads. The reverse sweep steps over
// curand_init's loops instead of recording their way back, which filled
// the device heap at this size.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx -Rpass-missed=kinase 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe

#include <curand_kernel.h>
#include <kinase.h>
#include <vector>
#include "cuda_check.h"

constexpr int kDraws = 8;

__device__ float sample_loss(const float *params, int i, unsigned long long seed) {
  curandState st;
  // REMARK-NOT: host-curand-reparam.cu:[[@LINE+1]]:{{.*}}device heap
  curand_init(seed, i, 0, &st);
  float mu = params[0], s = params[1], acc = 0.f;
  for (int k = 0; k < kDraws; k++) {
    float v = mu + s * curand_normal(&st);
    acc += v * v;
  }
  return acc / kDraws;
}

__global__ void loss_kernel(const float *params, float *out, int n, unsigned long long seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = sample_loss(params, i, seed);
}

void loss(const float *d_params, float *d_out, int n, unsigned long long seed) {
  loss_kernel<<<(n + 127) / 128, 128>>>(d_params, d_out, n, seed);
}

// The same gradient asked for inside a kernel.
__global__ void grad_kernel(const float *params, float *dparams, int n, unsigned long long seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    __enzyme_autodiff((void *)sample_loss, enzyme_dup, params, dparams, enzyme_const, i, enzyme_const, seed);
}

__global__ void draws_kernel(float *z, int n, unsigned long long seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  curandState st;
  curand_init(seed, i, 0, &st);
  for (int k = 0; k < kDraws; k++)
    z[i * kDraws + k] = curand_normal(&st);
}

int main() {
  require_device();
  const int n = 1 << 16;
  const unsigned long long seed = 20261206ull;
  std::vector<float> params = {0.5f, 1.5f}, z(n * kDraws);
  float *d_z = device_alloc<float>(n * kDraws);
  draws_kernel<<<blocks_for(n, 128), 128>>>(d_z, n, seed);
  check_kernel("draws_kernel");
  from_device(z, d_z);
  double want_mu = 0, want_s = 0;
  for (int i = 0; i < n * kDraws; i++) {
    double v = params[0] + params[1] * z[i];
    want_mu += 2 * v / kDraws;
    want_s += 2 * v * z[i] / kDraws;
  }

  float *d_params = to_device(params), *d_out = device_alloc<float>(n);
  float *d_dparams = device_alloc<float>(2), *d_dout = to_device(std::vector<float>(n, 1.f));
  check_cuda(cudaMemset(d_dparams, 0, 2 * sizeof(float)), "memset");
  __enzyme_autodiff((void *)loss, enzyme_dup, d_params, d_dparams, enzyme_dupnoneed, d_out, d_dout,
                    enzyme_const, n, enzyme_const, seed);
  check_kernel("host-level gradient");
  std::vector<float> g(2);
  from_device(g, d_dparams);
  check_close(g[0], want_mu, 1e-3, "host-level d/dmu");
  check_close(g[1], want_s, 1e-3, "host-level d/ds");

  check_cuda(cudaMemset(d_dparams, 0, 2 * sizeof(float)), "memset");
  grad_kernel<<<blocks_for(n, 128), 128>>>(d_params, d_dparams, n, seed);
  check_kernel("grad_kernel");
  from_device(g, d_dparams);
  check_close(g[0], want_mu, 1e-3, "device-side d/dmu");
  check_close(g[1], want_s, 1e-3, "device-side d/ds");
  device_free_all();
  return check_exit();
}
