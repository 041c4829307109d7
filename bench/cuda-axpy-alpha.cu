// An active by-value scalar of a kernel, written the way its user writes it:
// the BLAS-style y = alpha * x + y, in place, launched from a host function,
// and the gradient of a loss of y with respect to alpha from one host-level
// request, the data x Const:
//
//   double dalpha = __enzyme_autodiff(axpy, enzyme_dup, y, dy,
//                                     enzyme_const, x, enzyme_out, alpha, n)
//
// Every thread adds its share dy[i] * x[i] into alpha's one adjoint: the
// reverse kernel's cost is how those adds are combined. Against a
// hand-written kernel a CUDA programmer would write for dalpha (a block
// reduction through shared memory, one atomic per block), same clang. The
// variant has x dup too (dx += alpha * dy). Prints milliseconds (median of
// BENCH_REPEAT) at n = 2^20 and 2^24 and checks that the gradients agree.
// Build: kinase-cc -O2 --cuda-gpu-arch=sm_90.
#include <kinase.h>
#include "cuda_timing.h"
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <vector>

enum { BLOCK = 256 };

__global__ void axpy_kernel(float *y, const float *x, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = alpha * x[i] + y[i];
}

void axpy(float *y, const float *x, float alpha, int n) {
  axpy_kernel<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(y, x, alpha, n);
}

/* dalpha += sum_i dy[i] * x[i]: per block in shared memory, then one atomic. */
__global__ void hand_dalpha(float *dalpha, const float *dy, const float *x, int n) {
  __shared__ float part[BLOCK];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  part[threadIdx.x] = i < n ? dy[i] * x[i] : 0.f;
  __syncthreads();
  for (int half = BLOCK / 2; half; half /= 2) {
    if (threadIdx.x < half)
      part[threadIdx.x] += part[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(dalpha, part[0]);
}

static int run_size(int n) {
  std::vector<float> x(n), dy(n);
  for (int i = 0; i < n; i++) {
    x[i] = sinf(0.001f * i);
    dy[i] = 1.f + 0.5f * cosf(0.003f * i);
  }
  double want = 0;
  for (int i = 0; i < n; i++)
    want += (double)dy[i] * x[i];
  size_t bytes = n * sizeof(float);
  float *d_x, *d_dx, *d_y, *d_dy, *d_dalpha;
  CHECK(cudaMalloc(&d_x, bytes));
  CHECK(cudaMalloc(&d_dx, bytes));
  CHECK(cudaMalloc(&d_y, bytes));
  CHECK(cudaMalloc(&d_dy, bytes));
  CHECK(cudaMalloc(&d_dalpha, sizeof(float)));
  CHECK(cudaMemcpy(d_x, x.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_dy, dy.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_y, 0, bytes));
  CHECK(cudaMemset(d_dx, 0, bytes));
  unsigned grid = (unsigned)((n + BLOCK - 1) / BLOCK);
  const float alpha = 0.75f;

  float primal = median_ms([&] { axpy(d_y, d_x, alpha, n); });
  float hand = median_ms([&] { hand_dalpha<<<grid, BLOCK>>>(d_dalpha, d_dy, d_x, n); });
  double got = 0, got_dup = 0;
  /* dy passes through unchanged (y's old value has slope 1): every timed
   * request sees the same seed. */
  float kinase = median_ms([&] {
    got = __enzyme_autodiff((void *)axpy, enzyme_dup, d_y, d_dy, enzyme_const, d_x, enzyme_out, alpha, n);
  });
  float kinase_dup = median_ms([&] {
    got_dup = __enzyme_autodiff((void *)axpy, enzyme_dup, d_y, d_dy, enzyme_dup, d_x, d_dx, enzyme_out,
                                alpha, n);
  });
  CHECK(cudaDeviceSynchronize());
  double err = fabs(got - want) / fabs(want), err_dup = fabs(got_dup - want) / fabs(want);
  printf("n=%-9d primal %7.3f ms  hand dalpha %7.3f ms  kinase x Const %7.3f ms (%.2fx, err %.1e)  "
         "x dup %7.3f ms (%.2fx, err %.1e)\n",
         n, primal, hand, kinase, kinase / hand, err, kinase_dup, kinase_dup / hand, err_dup);
  cudaFree(d_x);
  cudaFree(d_dx);
  cudaFree(d_y);
  cudaFree(d_dy);
  cudaFree(d_dalpha);
  return err < 1e-3 && err_dup < 1e-3 ? 0 : 1;
}

int main(void) {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("%s, median of %d runs, times of the GPU (CUDA events)\n", prop.name, BENCH_REPEAT);
  int bad = 0;
  for (int n : {1 << 20, 1 << 24})
    bad |= run_size(n);
  return bad;
}
