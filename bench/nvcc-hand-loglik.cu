// The seed's hand-written analytic gradient kernel (loglik_hand.h) built by
// nvcc, for issue 11's second yardstick: Kinase's derivative against the
// hand kernel compiled by the same clang (cuda-host-loglik.cu) and by nvcc.
// Prints milliseconds, median of BENCH_REPEAT, at the seed's three sizes.
// Build: nvcc -O3 -arch=sm_90 bench/nvcc-hand-loglik.cu (not kinase-cc: it
// has no request).
#include "cuda_timing.h"
#include "loglik_hand.h"

int main(void) {
  printf("hand-written gradient, nvcc, median of %d runs\n", BENCH_REPEAT);
  for (const auto &size : loglik_sizes) {
    int b = size[0], n = size[1];
    std::vector<float> th, x;
    loglik_inputs(th, x, b, n);
    float *d_th, *d_dth, *d_x;
    CHECK(cudaMalloc(&d_th, th.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_dth, th.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_x, x.size() * sizeof(float)));
    CHECK(cudaMemcpy(d_th, th.data(), th.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_x, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
    unsigned grid = (unsigned)((b + BLOCK - 1) / BLOCK);
    float ms = median_ms([&] { hand_gradient<<<grid, BLOCK>>>(d_dth, d_th, d_x, n, b); });
    printf("B=%-9d N=%-7d hand (nvcc) %8.3f ms\n", b, n, ms);
    cudaFree(d_th);
    cudaFree(d_dth);
    cudaFree(d_x);
  }
  return 0;
}
