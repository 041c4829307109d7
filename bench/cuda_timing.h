// What the CUDA benchmarks share: a check that stops at the first failing
// CUDA call, and the median GPU time of a piece of work.
#ifndef KINASE_BENCH_CUDA_TIMING_H
#define KINASE_BENCH_CUDA_TIMING_H

#include <algorithm>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

#define CHECK(call)                                                                            \
  do {                                                                                         \
    cudaError_t err_ = (call);                                                                 \
    if (err_ != cudaSuccess) {                                                                 \
      fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(err_));                            \
      exit(1);                                                                                 \
    }                                                                                          \
  } while (0)

enum { BENCH_REPEAT = 15 };

// The median of BENCH_REPEAT runs of `run`, in milliseconds of the GPU (CUDA
// events on the default stream), after one run to warm up (module loading,
// the runtime's lookups).
template <class F> static float median_ms(F run) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  run();
  CHECK(cudaDeviceSynchronize());
  std::vector<float> times;
  for (int r = 0; r < BENCH_REPEAT; r++) {
    CHECK(cudaEventRecord(start));
    run();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return times[BENCH_REPEAT / 2];
}

#endif
