// Vectorised loads and the classic block reduction, as in many hand-tuned
// CUDA codes: the first kernel reads particles as float4 through __ldg
// (x, y, z, charge), returns early past the end, and writes a float4 of
// per-particle terms; the second reduces them per block through __shared__
// memory, the last warp unrolled through a volatile pointer with
// __syncwarp between steps, and `if (threadIdx.x == 0)` writes the block's
// partial sum; the host adds the partials. E = sum_i q_i (x_i^2 + y_i^2 +
// z_i^2) + sum_i sin(x_i y_i) (as the four components of the float4).
// Gradient with respect to every component of every particle; forward mode
// along a direction checked against it.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
// RUN: not grep -E "kwhy.*(particle_terms|block_sum)" %t.O0.ptx %t.ptx

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { PARTICLES = 1000, BLOCK = 128 };

__global__ void particle_terms(float4 *terms, const float4 *particles, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float4 p = __ldg(&particles[i]);
  terms[i] = make_float4(p.w * p.x * p.x, p.w * p.y * p.y, p.w * p.z * p.z, sinf(p.x * p.y));
}

__global__ void block_sum(float *partial, const float *v, int n) {
  __shared__ float s[BLOCK];
  int t = threadIdx.x, i = blockIdx.x * BLOCK + t;
  s[t] = i < n ? v[i] : 0.0f;
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 32; stride /= 2) {
    if (t < stride)
      s[t] += s[t + stride];
    __syncthreads();
  }
  if (t < 32) {
    volatile float *vs = s;
    for (int stride = 32; stride > 0; stride /= 2) {
      vs[t] += vs[t + stride];
      __syncwarp();
    }
  }
  if (threadIdx.x == 0)
    partial[blockIdx.x] = s[0];
}

float energy(const float *particles, int n) {
  float4 *terms;
  float *partial;
  int m = 4 * n, blocks = (m + BLOCK - 1) / BLOCK;
  cudaMalloc(&terms, n * sizeof(float4));
  cudaMalloc(&partial, blocks * sizeof(float));
  particle_terms<<<(n + 63) / 64, 64>>>(terms, (const float4 *)particles, n);
  block_sum<<<blocks, BLOCK>>>(partial, (const float *)terms, m);
  std::vector<float> host(blocks);
  cudaMemcpy(host.data(), partial, blocks * sizeof(float), cudaMemcpyDeviceToHost);
  float e = 0;
  for (int b = 0; b < blocks; b++)
    e += host[b];
  cudaFree(terms);
  cudaFree(partial);
  return e;
}

int main() {
  require_device();
  std::vector<float> p(4 * PARTICLES), dir(4 * PARTICLES);
  for (int i = 0; i < PARTICLES; i++) {
    p[4 * i] = sinf(0.1f * i);
    p[4 * i + 1] = cosf(0.07f * i);
    p[4 * i + 2] = 0.5f * sinf(0.3f * i + 1);
    p[4 * i + 3] = 1.0f + 0.5f * cosf(0.9f * i);
    for (int c = 0; c < 4; c++)
      dir[4 * i + c] = sinf(0.37f * (4 * i + c));
  }
  float *d_p = to_device(p), *d_dp = device_alloc<float>(4 * PARTICLES), *d_dir = to_device(dir);
  check_cuda(cudaMemset(d_dp, 0, 4 * PARTICLES * sizeof(float)), "memset");
  __enzyme_autodiff((void *)energy, enzyme_dup, d_p, d_dp, enzyme_const, PARTICLES);
  check_kernel("gradient of energy");
  double tangent = __enzyme_fwddiff((void *)energy, enzyme_dup, d_p, d_dir, enzyme_const, PARTICLES);
  check_kernel("tangent of energy");
  std::vector<float> dp(4 * PARTICLES);
  from_device(dp, d_dp);
  double e = 0, t_want = 0;
  for (int i = 0; i < PARTICLES; i++) {
    double x = p[4 * i], y = p[4 * i + 1], z = p[4 * i + 2], q = p[4 * i + 3];
    e += q * (x * x + y * y + z * z) + sin(x * y);
    double want[4] = {2 * q * x + y * cos(x * y), 2 * q * y + x * cos(x * y), 2 * q * z,
                      x * x + y * y + z * z};
    for (int c = 0; c < 4; c++) {
      check_close(dp[4 * i + c], want[c], 1e-4, "dE/dp[%d].%d", i, c);
      t_want += want[c] * dir[4 * i + c];
    }
  }
  check_close(tangent, t_want, 1e-4, "tangent");
  check_close(energy(d_p, PARTICLES), e, 1e-4, "energy");
  device_free_all();
  return check_exit();
}
