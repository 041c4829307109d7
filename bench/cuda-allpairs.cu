// All-pairs energy, written the way its user writes it: one thread per
// particle, e_i = sum_{j != i} 0.5 / sqrt(|r_i - r_j|^2 + eps) through
// rsqrtf, and a host function that launches it. The gradient of the total
// energy is minus the force; Kinase's comes from one host-level request,
//
//   __enzyme_autodiff(compute_energies, enzyme_dupnoneed, e, de,
//                     enzyme_dup, x, dx, n)
//
// against a hand-written force kernel (each thread gathers over j, no
// atomics), same clang. The reverse kernel scatters into dx[j] from every
// thread: those adds are where the time goes. Prints milliseconds (median
// of BENCH_REPEAT) for n = 4096 and 16384 and checks that the gradients agree.
// Build: kinase-cc -O2 --cuda-gpu-arch=sm_90.
#include <kinase.h>
#include "cuda_timing.h"
#include <algorithm>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

enum { BLOCK = 128 };
#define EPS 0.01f

__global__ void energies(float *e, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2], sum = 0.f;
  for (int j = 0; j < n; j++) {
    if (j == i)
      continue;
    float dx = xi - x[3 * j], dy = yi - x[3 * j + 1], dz = zi - x[3 * j + 2];
    sum += 0.5f * rsqrtf(dx * dx + dy * dy + dz * dz + EPS);
  }
  e[i] = sum;
}

void compute_energies(float *e, const float *x, int n) {
  energies<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(e, x, n);
}

/* d(sum_i e_i)/d r_i = -sum_{j != i} (r_i - r_j) / |r_i - r_j|^3: each pair
 * appears in e_i and e_j with 0.5 each. */
__global__ void hand_gradient(float *g, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2], gx = 0.f, gy = 0.f, gz = 0.f;
  for (int j = 0; j < n; j++) {
    if (j == i)
      continue;
    float dx = xi - x[3 * j], dy = yi - x[3 * j + 1], dz = zi - x[3 * j + 2];
    float r = rsqrtf(dx * dx + dy * dy + dz * dz + EPS), r3 = r * r * r;
    gx -= dx * r3;
    gy -= dy * r3;
    gz -= dz * r3;
  }
  g[3 * i] = gx;
  g[3 * i + 1] = gy;
  g[3 * i + 2] = gz;
}


static int run_size(int n) {
  std::vector<float> x(3 * (size_t)n), want(x.size()), got(x.size()), ones(n, 1.f);
  int side = (int)ceil(cbrt((double)n));
  for (int i = 0; i < n; i++)
    for (int c = 0; c < 3; c++) {
      int coord = c == 0 ? i % side : c == 1 ? (i / side) % side : i / (side * side);
      x[3 * i + c] = 0.5f * coord + 0.1f * sinf(1.7f * i + 2.3f * c);
    }
  size_t bytes = x.size() * sizeof(float);
  float *d_x, *d_dx, *d_g, *d_e, *d_de;
  CHECK(cudaMalloc(&d_x, bytes));
  CHECK(cudaMalloc(&d_dx, bytes));
  CHECK(cudaMalloc(&d_g, bytes));
  CHECK(cudaMalloc(&d_e, n * sizeof(float)));
  CHECK(cudaMalloc(&d_de, n * sizeof(float)));
  CHECK(cudaMemcpy(d_x, x.data(), bytes, cudaMemcpyHostToDevice));
  unsigned grid = (unsigned)((n + BLOCK - 1) / BLOCK);

  float primal = median_ms([&] { compute_energies(d_e, d_x, n); });
  float hand = median_ms([&] { hand_gradient<<<grid, BLOCK>>>(d_g, d_x, n); });
  CHECK(cudaMemcpy(want.data(), d_g, bytes, cudaMemcpyDeviceToHost));
  /* Each timed request accumulates into dx; the check below starts from 0. */
  float kinase = median_ms([&] {
    __enzyme_autodiff((void *)compute_energies, enzyme_dupnoneed, d_e, d_de, enzyme_dup, d_x, d_dx, n);
  });
  CHECK(cudaMemset(d_dx, 0, bytes));
  CHECK(cudaMemcpy(d_de, ones.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  __enzyme_autodiff((void *)compute_energies, enzyme_dupnoneed, d_e, d_de, enzyme_dup, d_x, d_dx, n);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(got.data(), d_dx, bytes, cudaMemcpyDeviceToHost));
  double worst = 0, scale = 0;
  for (size_t k = 0; k < x.size(); k++)
    scale = std::max(scale, fabs((double)want[k]));
  for (size_t k = 0; k < x.size(); k++)
    worst = std::max(worst, fabs((double)got[k] - want[k]) / scale);
  printf("n=%-6d primal %8.3f ms  hand force %8.3f ms  kinase host-level %8.3f ms (%.2fx, err %.1e)\n",
         n, primal, hand, kinase, kinase / hand, worst);
  cudaFree(d_x);
  cudaFree(d_dx);
  cudaFree(d_g);
  cudaFree(d_e);
  cudaFree(d_de);
  return worst < 1e-3 ? 0 : 1;
}

int main(void) {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("%s, median of %d runs, times of the GPU (CUDA events)\n", prop.name, BENCH_REPEAT);
  int bad = 0;
  for (int n : {4096, 16384})
    bad |= run_size(n);
  return bad;
}
