// Host code calling what Kinase does not differentiate, each a located
// error at the user's call that names it and says why, never a derivative
// made (or an error reported) deep inside a library: cub's device-wide
// algorithms and thrust's algorithms, whose dispatch launches kernels through
// handles picked at run time (Kinase went into cub's dispatch and
// differentiated it without a word), peer copies between devices, and CUDA
// arrays. cudaHostGetDevicePointer, textures and surfaces have rows
// (test/cuda/hunt13-mapped-texture.cu).
// REQUIRES: cuda
// RUN: not %kinase-cc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>
#include <cub/cub.cuh>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

__global__ void square(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * x[i];
}

float cub_sum(const float *x, int n) {
  float *y, *out, r;
  void *temp = nullptr;
  size_t bytes = 0;
  cudaMalloc(&y, n * sizeof(float));
  cudaMalloc(&out, sizeof(float));
  square<<<(n + 255) / 256, 256>>>(y, x, n);
  // CHECK-DAG: cuda-library-calls.cu:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'cub_sum(float const*, int)': it calls 'cudaError cub::{{.*}}DeviceReduce::Sum<float*, float*, int>({{.*}})': cub's device-wide algorithms
  cub::DeviceReduce::Sum(temp, bytes, y, out, n);
  cudaMalloc(&temp, bytes);
  cub::DeviceReduce::Sum(temp, bytes, y, out, n);
  cudaMemcpy(&r, out, sizeof r, cudaMemcpyDeviceToHost);
  return r;
}

float cub_scan_last(const float *x, int n) {
  float *y, *scan, r;
  void *temp = nullptr;
  size_t bytes = 0;
  cudaMalloc(&y, n * sizeof(float));
  cudaMalloc(&scan, n * sizeof(float));
  square<<<(n + 255) / 256, 256>>>(y, x, n);
  // CHECK-DAG: cuda-library-calls.cu:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'cub_scan_last(float const*, int)': it calls '{{.*}}cub::{{.*}}DeviceScan::InclusiveSum<{{.*}}': cub's device-wide algorithms
  cub::DeviceScan::InclusiveSum(temp, bytes, y, scan, n);
  cudaMemcpy(&r, scan + n - 1, sizeof r, cudaMemcpyDeviceToHost);
  return r;
}

float thrust_sum(const float *x, int n) {
  float *y;
  cudaMalloc(&y, n * sizeof(float));
  square<<<(n + 255) / 256, 256>>>(y, x, n);
  // CHECK-DAG: cuda-library-calls.cu:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'thrust_sum(float const*, int)': it calls '{{.*}}thrust::{{.*}}reduce<{{.*}}': thrust's algorithms and containers
  return thrust::reduce(thrust::device, y, y + n, 0.0f);
}

float peer_copy(const float *x, int n) {
  float *y, *z, r;
  cudaMalloc(&y, n * sizeof(float));
  cudaMalloc(&z, n * sizeof(float));
  square<<<(n + 255) / 256, 256>>>(y, x, n);
  // CHECK-DAG: cuda-library-calls.cu:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'peer_copy(float const*, int)': it copies between two devices' memory{{.*}} (cudaMemcpyPeer)
  cudaMemcpyPeer(z, 1, y, 0, n * sizeof(float));
  cudaMemcpy(&r, z, sizeof r, cudaMemcpyDeviceToHost);
  return r;
}

float array_copy(const float *x, int n) {
  cudaArray_t array;
  cudaChannelFormatDesc channel = cudaCreateChannelDesc<float>();
  // CHECK-DAG: cuda-library-calls.cu:[[@LINE+1]]:{{[0-9]+}}: error: kinase: cannot differentiate 'array_copy(float const*, int)': it uses a CUDA array, which has no shadow in Kinase{{.*}} (cudaMallocArray)
  cudaMallocArray(&array, &channel, n, 1);
  cudaMemcpy2DToArray(array, 0, 0, x, n * sizeof(float), n * sizeof(float), 1, cudaMemcpyDeviceToDevice);
  return 0.0f;
}

void gradients(const float *x, float *dx, int n) {
  __enzyme_autodiff((void *)cub_sum, enzyme_dup, x, dx, enzyme_const, n);
  __enzyme_autodiff((void *)cub_scan_last, enzyme_dup, x, dx, enzyme_const, n);
  __enzyme_autodiff((void *)thrust_sum, enzyme_dup, x, dx, enzyme_const, n);
  __enzyme_autodiff((void *)peer_copy, enzyme_dup, x, dx, enzyme_const, n);
  __enzyme_autodiff((void *)array_copy, enzyme_dup, x, dx, enzyme_const, n);
}
// CHECK: 5 errors generated when compiling for host
