// An all-pairs potential as the CUDA samples' n-body code computes it: a
// host array of particle structs {x, y, z, m} copied as float4, each block
// loading tiles of float4 into shared memory between barriers, each thread
// summing -m_i m_j rsqrt(r^2 + eps^2) over the tile, and the energy added
// into a device double with atomicAdd, copied back and returned. Reverse
// mode: gradients of the energy with respect to positions and masses, with
// the self term -m_i^2 / eps included in the sum, as the kernel does.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe

#include <kinase.h>
#include <math.h>
#include <string.h>
#include <vector>
#include "cuda_check.h"

enum { N = 200, TILE = 64 };

struct Particle {
  float x, y, z, m;
};

__global__ void potential(const float4 *__restrict__ p, double *energy, int n, float eps2) {
  __shared__ float4 tile[TILE];
  int i = blockIdx.x * TILE + threadIdx.x;
  float4 me = i < n ? p[i] : make_float4(0.f, 0.f, 0.f, 0.f);
  float e = 0.f;
  for (int t = 0; t < (n + TILE - 1) / TILE; t++) {
    int j = t * TILE + threadIdx.x;
    tile[threadIdx.x] = j < n ? p[j] : make_float4(0.f, 0.f, 0.f, 0.f);
    __syncthreads();
    for (int k = 0; k < TILE; k++) {
      float4 o = tile[k];
      float dx = o.x - me.x, dy = o.y - me.y, dz = o.z - me.z;
      e -= me.w * o.w * rsqrtf(dx * dx + dy * dy + dz * dz + eps2);
    }
    __syncthreads();
  }
  if (i < n)
    atomicAdd(energy, 0.5 * (double)e);
}

double total_energy(const Particle *h, int n, float eps2) {
  float4 *d;
  double *d_energy, energy;
  cudaMalloc(&d, n * sizeof(float4));
  cudaMalloc(&d_energy, sizeof(double));
  cudaMemset(d_energy, 0, sizeof(double));
  cudaMemcpy(d, h, n * sizeof(float4), cudaMemcpyHostToDevice);
  potential<<<(n + TILE - 1) / TILE, TILE>>>(d, d_energy, n, eps2);
  cudaMemcpy(&energy, d_energy, sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(d);
  cudaFree(d_energy);
  return energy;
}

int main() {
  require_device();
  const float eps2 = 0.01f;
  std::vector<Particle> p(N), dp(N);
  for (int i = 0; i < N; i++)
    p[i] = {sinf(1.1f * i), cosf(0.7f * i), sinf(0.3f * i + 1.0f), 1.0f + 0.01f * (i % 5)};
  memset(dp.data(), 0, N * sizeof(Particle));
  __enzyme_autodiff((void *)total_energy, enzyme_dup, p.data(), dp.data(), enzyme_const, N, enzyme_const, eps2);
  check_kernel("gradient of total_energy");
  for (int i = 0; i < N; i++) {
    double g[3] = {0, 0, 0}, gm = 0;
    for (int j = 0; j < N; j++) {
      double d[3] = {(double)p[j].x - p[i].x, (double)p[j].y - p[i].y, (double)p[j].z - p[i].z};
      double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2, r = sqrt(r2);
      gm -= p[j].m / r;
      for (int c = 0; c < 3; c++)
        g[c] -= p[i].m * p[j].m * d[c] / (r2 * r);
    }
    check_close(dp[i].x, g[0], 2e-3, "d/dx[%d]", i);
    check_close(dp[i].y, g[1], 2e-3, "d/dy[%d]", i);
    check_close(dp[i].z, g[2], 2e-3, "d/dz[%d]", i);
    check_close(dp[i].m, gm, 2e-3, "d/dm[%d]", i);
  }
  return check_exit();
}
