// A block reduction launched on cudaStreamPerThread from a differentiated
// host function: a kernel templated on its block size (shared memory tree,
// __restrict__ pointers), partial sums in a cudaMallocAsync buffer, the copy
// back's cudaMemcpyKind passed in as an argument, an early return of NaN
// when cudaStreamSynchronize fails, assert on cudaGetLastError, printf of
// the value, and std::accumulate over the partial sums on the host.
// energy(x) = 0.5 sum x_i^2: d/dx_i = x_i; forward mode along t gives x . t.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_
// CHECK-DAG: {{call|invoke}} {{.*}}ptr @__kinase_launch_augment(ptr {{.*}}block_sum
// CHECK-DAG: {{call|invoke}} void @__kinase_launch_reverse(
// CHECK-DAG: {{call|invoke}} void @__kinase_copy_reverse(
// CHECK-DAG: {{call|invoke}} void @__kinase_launch_tangent(ptr {{.*}}block_sum

#include <kinase.h>
#include <cassert>
#include <numeric>
#include <vector>
#include "cuda_check.h"

template <int BLOCK>
__global__ void block_sum(float *__restrict__ partial, const float *__restrict__ x, int n) {
  __shared__ float s[BLOCK];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  s[threadIdx.x] = i < n ? x[i] * x[i] : 0.f;
  __syncthreads();
  for (int k = BLOCK / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    partial[blockIdx.x] = s[0];
}

float energy(const float *x, int n, cudaMemcpyKind back) {
  constexpr int B = 256;
  int blocks = (n + B - 1) / B;
  float *partial;
  cudaMallocAsync(&partial, blocks * sizeof(float), cudaStreamPerThread);
  block_sum<B><<<blocks, B, 0, cudaStreamPerThread>>>(partial, x, n);
  assert(cudaGetLastError() == cudaSuccess);
  std::vector<float> h(blocks);
  cudaMemcpyAsync(h.data(), partial, blocks * sizeof(float), back, cudaStreamPerThread);
  if (cudaStreamSynchronize(cudaStreamPerThread) != cudaSuccess)
    return NAN;
  cudaFreeAsync(partial, cudaStreamPerThread);
  float e = std::accumulate(h.begin(), h.end(), 0.0f);
  printf("energy %g\n", e);
  return 0.5f * e;
}

int main() {
  require_device();
  const int n = 5000;
  std::vector<float> x(n), t(n);
  double along = 0, scale = 0; /* x . t is small beside the float sums' terms */
  for (int i = 0; i < n; i++) {
    x[i] = sinf(0.01f * i);
    t[i] = cosf(0.03f * i);
    along += (double)x[i] * t[i];
    scale += fabs((double)x[i] * t[i]);
  }
  float *d_x = to_device(x), *d_t = to_device(t), *d_dx = device_alloc<float>(n);
  check_cuda(cudaMemset(d_dx, 0, n * sizeof(float)), "memset");
  __enzyme_autodiff((void *)energy, enzyme_dup, d_x, d_dx, enzyme_const, n, enzyme_const,
                    cudaMemcpyDeviceToHost);
  check_kernel("gradient of energy");
  std::vector<float> dx(n);
  from_device(dx, d_dx);
  for (int i = 0; i < n; i++)
    check_close(dx[i], x[i], 1e-6, "d/dx[%d]", i);
  float tangent = __enzyme_fwddiff((void *)energy, enzyme_dup, d_x, d_t, enzyme_const, n, enzyme_const,
                                   cudaMemcpyDeviceToHost);
  check_kernel("tangent of energy");
  check_within(tangent, along, 4e-6 * scale, "tangent along t");
  device_free_all();
  return check_exit();
}
