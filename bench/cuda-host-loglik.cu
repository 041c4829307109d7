// The motivating workload, written the way its user writes it: a host
// function launches one thread per parameter vector; each thread writes the
// log-likelihood of its vector over N two-dimensional data points (Gaussian,
// diagonal) to logLs[i]. Per-sample gradients for HMC come from one
// host-level request with the data Const and logLs enzyme_dupnoneed:
//
//   __enzyme_autodiff(compute_logLs, enzyme_dupnoneed, logLs, dlogLs,
//                     enzyme_dup, thetas, dthetas, enzyme_const, x, N, B)
//
// against a hand-written analytic gradient kernel alone (same clang), and,
// as variants, the per-thread device-side request of issue 11 (the same
// function with an output pointer, differentiated inside a kernel), and
// both requests with logL needed (enzyme_dup: HMC wants the value too).
// Prints milliseconds (median of BENCH_REPEAT) and the ratios; checks that all
// gradients agree. Build: kinase-cc -O2 --cuda-gpu-arch=sm_90.
#include <kinase.h>
#include "cuda_timing.h"
#include "loglik_hand.h"
#include <algorithm>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "../test/cuda/include/loglik_one.cuh"

__global__ void loglik(float *logL, const float *th, const float *x, int n, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < b)
    loglik_one(logL + i, th + P * i, x, n);
}

void compute_logLs(float *logLs, const float *thetas, const float *x, int n, int b) {
  loglik<<<(b + BLOCK - 1) / BLOCK, BLOCK>>>(logLs, thetas, x, n, b);
}

__global__ void device_request(float *logL, float *dlogL, const float *th, float *dth,
                               const float *x, int n, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < b)
    __enzyme_autodiff((void *)loglik_one, enzyme_dupnoneed, logL + i, dlogL + i, enzyme_dup,
                      th + P * i, dth + P * i, enzyme_const, x, enzyme_const, n);
}

/* The variant an HMC sampler writes: it wants logL as well (enzyme_dup). */
__global__ void device_request_needed(float *logL, float *dlogL, const float *th, float *dth,
                                      const float *x, int n, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < b)
    __enzyme_autodiff((void *)loglik_one, enzyme_dup, logL + i, dlogL + i, enzyme_dup,
                      th + P * i, dth + P * i, enzyme_const, x, enzyme_const, n);
}


static double max_relative_error(const std::vector<float> &got, const std::vector<float> &want) {
  double worst = 0;
  for (size_t i = 0; i < got.size(); i++)
    worst = std::max(worst, fabs((double)got[i] - want[i]) / std::max(1.0, fabs((double)want[i])));
  return worst;
}

static int run_size(int b, int n) {
  std::vector<float> th, x, ones(b, 1.0f);
  loglik_inputs(th, x, b, n);
  size_t tb = th.size() * sizeof(float);
  float *d_th, *d_dth, *d_x, *d_logL, *d_dlogL;
  CHECK(cudaMalloc(&d_th, tb));
  CHECK(cudaMalloc(&d_dth, tb));
  CHECK(cudaMalloc(&d_x, x.size() * sizeof(float)));
  CHECK(cudaMalloc(&d_logL, b * sizeof(float)));
  CHECK(cudaMalloc(&d_dlogL, b * sizeof(float)));
  CHECK(cudaMemcpy(d_th, th.data(), tb, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_x, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  unsigned grid = (unsigned)((b + BLOCK - 1) / BLOCK);

  float primal = median_ms([&] { compute_logLs(d_logL, d_th, d_x, n, b); });
  float hand = median_ms([&] { hand_gradient<<<grid, BLOCK>>>(d_dth, d_th, d_x, n, b); });
  std::vector<float> want(th.size()), got(th.size());
  CHECK(cudaMemcpy(want.data(), d_dth, tb, cudaMemcpyDeviceToHost));

  auto host = [&] {
    __enzyme_autodiff((void *)compute_logLs, enzyme_dupnoneed, d_logL, d_dlogL, enzyme_dup, d_th,
                      d_dth, enzyme_const, d_x, n, b);
  };
  auto device = [&] { device_request<<<grid, BLOCK>>>(d_logL, d_dlogL, d_th, d_dth, d_x, n, b); };
  /* The variants with logL needed. */
  auto host_needed = [&] {
    __enzyme_autodiff((void *)compute_logLs, enzyme_dup, d_logL, d_dlogL, enzyme_dup, d_th, d_dth,
                      enzyme_const, d_x, n, b);
  };
  auto device_needed = [&] {
    device_request_needed<<<grid, BLOCK>>>(d_logL, d_dlogL, d_th, d_dth, d_x, n, b);
  };
  /* A request's gradient from zeroed dthetas and seeds of 1, against the
   * hand kernel's. The seed and the zeroing are the caller's, as for the
   * hand kernel's output: the timings are of the requests alone. */
  auto error_of = [&](auto request) {
    CHECK(cudaMemsetAsync(d_dth, 0, tb));
    CHECK(cudaMemcpy(d_dlogL, ones.data(), b * sizeof(float), cudaMemcpyHostToDevice));
    request();
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got.data(), d_dth, tb, cudaMemcpyDeviceToHost));
    return max_relative_error(got, want);
  };

  float kinase_ms = median_ms(host);
  double host_error = error_of(host);
  printf("B=%-9d N=%-7d primal %8.3f ms  hand %8.3f ms  kinase host-level %8.3f ms (%.2fx, "
         "err %.1e)\n",
         b, n, primal, hand, kinase_ms, kinase_ms / hand, host_error);
  fflush(stdout);

  /* The device-side request: out of device heap is an error that ends the
   * context, so it goes last. */
  device();
  cudaError_t device_status = cudaDeviceSynchronize();
  if (device_status != cudaSuccess) {
    printf("%31s device-side request failed: %s\n", "", cudaGetErrorString(device_status));
    return host_error < 1e-3 ? 0 : 1;
  }
  float device_ms = median_ms(device);
  double device_error = error_of(device);
  printf("%31s device-side request %8.3f ms (%.2fx, err %.1e)\n", "", device_ms,
         device_ms / hand, device_error);

  float host_needed_ms = median_ms(host_needed), device_needed_ms = median_ms(device_needed);
  double needed_error = std::max(error_of(host_needed), error_of(device_needed));
  printf("%31s logL needed: host-level %8.3f ms (%.2fx), device-side %8.3f ms (%.2fx, err %.1e)\n",
         "", host_needed_ms, host_needed_ms / hand, device_needed_ms, device_needed_ms / hand,
         needed_error);
  cudaFree(d_th);
  cudaFree(d_dth);
  cudaFree(d_x);
  cudaFree(d_logL);
  cudaFree(d_dlogL);
  return host_error < 1e-3 && device_error < 1e-3 && needed_error < 1e-3 ? 0 : 1;
}

/* Each size in a child process of its own: a device-side request that runs
 * out of device heap ends its CUDA context, not the other sizes' runs. */
int main(void) {
  printf("median of %d runs, times of the GPU (CUDA events)\n", BENCH_REPEAT);
  fflush(stdout);
  int bad = 0;
  const char *only = getenv("KINASE_BENCH_SIZE"); /* 0, 1 or 2: that size alone */
  for (int s = 0; s < 3; s++) {
    if (only && atoi(only) != s)
      continue;
    pid_t child = fork();
    if (child == 0) {
      if (s == 0) {
        cudaDeviceProp prop;
        CHECK(cudaGetDeviceProperties(&prop, 0));
        printf("%s\n", prop.name);
      }
      int status = run_size(loglik_sizes[s][0], loglik_sizes[s][1]);
      fflush(stdout);
      _exit(status);
    }
    int status;
    waitpid(child, &status, 0);
    bad |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  }
  return bad;
}
