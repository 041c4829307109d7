// Host code as CUDA users write a launch helper: the block size from the
// occupancy API (cuda_runtime.h's template cudaOccupancyMaxPotentialBlockSize,
// whose body calls cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags),
// the grid capped by the device's multiprocessor count, free memory checked,
// an error-checking macro that prints and aborts, a RAII buffer allocated
// and freed stream-ordered, managed memory prefetched with a hint, and the
// result copied back with cudaMemcpyDefault and summed on the host. The
// queries and hints had no rows: 'has no derivative rule' at the template.
// Two launches of y = a x + y^2 from y = 0: y = a x + a^2 x^2, so
// d/da sum y = sum(x + 2 a x^2), d/dx_i = a + 2 a^2 x_i; forward mode along a.
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
// The queries stay as written, the launches are recorded and reversed.
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_
// CHECK-DAG: {{call|invoke}} {{.*}}@cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
// CHECK-DAG: {{call|invoke}} {{.*}}@cudaMemPrefetchAsync(
// CHECK-DAG: {{call|invoke}} {{.*}}ptr @__kinase_launch_augment(
// CHECK-DAG: {{call|invoke}} void @__kinase_launch_reverse(
// CHECK-DAG: {{call|invoke}} void @__kinase_launch_tangent(

#include <kinase.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "cuda_check.h"

#define CUDA_CHECK(call)                                                                     \
  do {                                                                                       \
    cudaError_t err_ = (call);                                                               \
    if (err_ != cudaSuccess) {                                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));          \
      std::abort();                                                                          \
    }                                                                                        \
  } while (0)

__global__ void axpy_square(float *y, const float *x, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i] * y[i];
}

template <typename T> struct DeviceBuffer {
  T *p = nullptr;
  explicit DeviceBuffer(size_t n) {
    CUDA_CHECK(cudaMallocAsync(&p, n * sizeof(T), 0));
    CUDA_CHECK(cudaMemsetAsync(p, 0, n * sizeof(T)));
  }
  ~DeviceBuffer() { cudaFreeAsync(p, 0); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
};

template <typename Kernel> static int grid_for(Kernel kernel, int n, int *block) {
  int device = 0, min_grid = 0;
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, block, kernel, 0, 0));
  return std::min((n + *block - 1) / *block, prop.multiProcessorCount * 2);
}

float twice(const float *x, float a, int n) {
  size_t free_bytes, total;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  if (free_bytes < n * sizeof(float))
    return 0;
  cudaMemLocation here = {cudaMemLocationTypeDevice, 0};
  CUDA_CHECK(cudaMemPrefetchAsync(x, n * sizeof(float), here, 0, 0));
  DeviceBuffer<float> y(n);
  int block = 0, grid = grid_for(axpy_square, n, &block);
  axpy_square<<<grid, block>>>(y.p, x, a, n);
  CUDA_CHECK(cudaGetLastError());
  axpy_square<<<grid, block>>>(y.p, x, a, n);
  CUDA_CHECK(cudaPeekAtLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> host(n);
  CUDA_CHECK(cudaMemcpy(host.data(), y.p, n * sizeof(float), cudaMemcpyDefault));
  double sum = 0;
  for (float v : host)
    sum += v;
  return (float)sum;
}

int main() {
  require_device();
  const int n = 50000;
  float *x, *dx;
  check_cuda(cudaMallocManaged(&x, n * sizeof(float)), "cudaMallocManaged");
  check_cuda(cudaMallocManaged(&dx, n * sizeof(float)), "cudaMallocManaged");
  for (int i = 0; i < n; i++) {
    x[i] = 0.001f * (i % 100) - 0.03f;
    dx[i] = 0;
  }
  const float a = 0.7f;
  float da = __enzyme_autodiff((void *)twice, enzyme_dup, x, dx, enzyme_out, a, enzyme_const, n);
  check_cuda(cudaDeviceSynchronize(), "gradient of twice");
  double want_da = 0;
  for (int i = 0; i < n; i++) {
    want_da += x[i] + 2.0 * a * x[i] * x[i];
    check_close(dx[i], a + 2.0 * a * a * x[i], 1e-5, "d/dx[%d]", i);
  }
  check_close(da, want_da, 1e-4, "d/da");
  float ta = __enzyme_fwddiff((void *)twice, enzyme_const, x, enzyme_dup, a, 1.0f, enzyme_const, n);
  check_close(ta, want_da, 1e-4, "tangent along a");
  cudaFree(x);
  cudaFree(dx);
  return check_exit();
}
