// The classic reduction of the CUDA samples: a SharedMemory<T> helper
// casting `extern __shared__ int[]` to T*, a grid-stride load of two
// elements a thread, a tree in shared memory unrolled on the block size (a
// template parameter), and the last warp's steps through a `volatile T *`
// with __syncwarp; an assert on the block size and a printf in the kernel.
// Instantiated for float and double in one module; the host function
// returns the 2-norm of a host vector, summing the blocks' partial sums on
// the host. Reverse mode: d|x|/dx = x / |x|.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe

#include <assert.h>
#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 10000, BLOCKS = 16 };

template <class T> struct SharedMemory {
  __device__ inline operator T *() {
    extern __shared__ int smem_[];
    return (T *)smem_;
  }
};

template <class T, unsigned BS> __global__ void reduce_squares(const T *in, T *out, unsigned n) {
  T *sdata = SharedMemory<T>();
  unsigned tid = threadIdx.x, i = blockIdx.x * (BS * 2) + threadIdx.x, grid = BS * 2 * gridDim.x;
  assert(blockDim.x == BS);
  T sum = 0;
  while (i < n) {
    sum += in[i] * in[i];
    if (i + BS < n)
      sum += in[i + BS] * in[i + BS];
    i += grid;
  }
  sdata[tid] = sum;
  __syncthreads();
  if (BS >= 256 && tid < 128)
    sdata[tid] = sum = sum + sdata[tid + 128];
  __syncthreads();
  if (BS >= 128 && tid < 64)
    sdata[tid] = sum = sum + sdata[tid + 64];
  __syncthreads();
  if (tid < 32) {
    volatile T *v = sdata;
    v[tid] = sum = sum + v[tid + 32];
    __syncwarp();
    v[tid] = sum = sum + v[tid + 16];
    __syncwarp();
    v[tid] = sum = sum + v[tid + 8];
    __syncwarp();
    v[tid] = sum = sum + v[tid + 4];
    __syncwarp();
    v[tid] = sum = sum + v[tid + 2];
    __syncwarp();
    v[tid] = sum = sum + v[tid + 1];
  }
  if (tid == 0) {
    out[blockIdx.x] = sdata[0];
    if (blockIdx.x == 0 && n == 0)
      printf("reduce_squares: empty input\n");
  }
}

template <class T> T norm2(const T *h, unsigned n) {
  const unsigned BS = 256;
  T *d, *partial;
  cudaMalloc(&d, n * sizeof(T));
  cudaMalloc(&partial, BLOCKS * sizeof(T));
  cudaMemcpy(d, h, n * sizeof(T), cudaMemcpyHostToDevice);
  reduce_squares<T, BS><<<BLOCKS, BS, BS * sizeof(T)>>>(d, partial, n);
  T sums[BLOCKS];
  cudaMemcpy(sums, partial, sizeof sums, cudaMemcpyDeviceToHost);
  cudaFree(d);
  cudaFree(partial);
  T s = 0;
  for (unsigned b = 0; b < BLOCKS; b++)
    s += sums[b];
  return sqrt(s);
}

int main() {
  require_device();
  std::vector<double> x(N), dx(N, 0.0);
  std::vector<float> xf(N), dxf(N, 0.0f);
  double s = 0.0;
  for (unsigned i = 0; i < N; i++) {
    x[i] = sin(0.01 * i);
    xf[i] = (float)x[i];
    s += x[i] * x[i];
  }
  s = sqrt(s);
  __enzyme_autodiff((void *)norm2<double>, enzyme_dup, x.data(), dx.data(), enzyme_const, (unsigned)N);
  check_kernel("gradient of norm2<double>");
  __enzyme_autodiff((void *)norm2<float>, enzyme_dup, xf.data(), dxf.data(), enzyme_const, (unsigned)N);
  check_kernel("gradient of norm2<float>");
  for (unsigned i = 0; i < N; i++) {
    check_close(dx[i], x[i] / s, 1e-10, "dx[%u]", i);
    check_close(dxf[i], x[i] / s, 1e-4, "dxf[%u]", i);
  }
  return check_exit();
}
