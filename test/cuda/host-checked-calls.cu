// Host code as CUDA programs write it around their kernels, differentiated:
//  - chunked_energy: every call wrapped in a CUDA_CHECK macro calling a
//    helper that prints and exits on an error; cudaGetDeviceProperties sizes the chunks from
//    the opt-in shared memory per block; cudaFuncSetAttribute allows more
//    than 48 KB of dynamic shared memory (the reverse kernel takes twice
//    that); events time the kernel; the kernel atomicAdds each block's sum
//    of squares into a device scalar, which cudaMemcpy copies back;
//  - managed_energy: managed memory filled on the host, cudaMemAdvise and
//    cudaMemPrefetchAsync (CUDA 13's cudaMemLocation forms), the same
//    kernel into a managed scalar the host reads after
//    cudaDeviceSynchronize.
// Both are sum x^2: d x = 2 x (analytic), both ways in.
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
// CHECK-DAG: call {{.*}}@__kinase_launch_augment(ptr {{.*}}@_Z28__device_stub__chunk_squaresPfPKfii,
// CHECK-DAG: call void @__kinase_launch_reverse(
// CHECK-DAG: call void @__kinase_launch_tangent(ptr {{.*}}@_Z28__device_stub__chunk_squaresPfPKfii,
// CHECK-DAG: call {{.*}}ptr @__kinase_shadow_alloc(i64 4, i32 1,

#include <kinase.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>
#include "cuda_check.h"

// The error check as a helper function: called on every result inside the
// differentiated functions, it exits on an error.
static void cuda_or_exit(cudaError_t err, const char *call, int line) {
  if (err == cudaSuccess)
    return;
  fprintf(stderr, "%s failed at line %d: %s\n", call, line, cudaGetErrorString(err));
  exit(1);
}
#define CUDA_CHECK(call) cuda_or_exit((call), #call, __LINE__)

// Each block stages its chunk of x in dynamic shared memory, then adds the
// squares it holds into *loss.
__global__ void chunk_squares(float *loss, const float *x, int n, int per_block) {
  extern __shared__ float tile[];
  int base = blockIdx.x * per_block;
  for (int k = threadIdx.x; k < per_block; k += blockDim.x)
    tile[k] = base + k < n ? x[base + k] : 0.0f;
  __syncthreads();
  float s = 0;
  for (int k = threadIdx.x; k < per_block; k += blockDim.x)
    s += tile[k] * tile[k];
  atomicAdd(loss, s);
}

float chunked_energy(const float *d_x, int n) {
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  // A quarter of what a block may opt into: the reverse kernel takes twice.
  int per_block = (int)(prop.sharedMemPerBlockOptin / sizeof(float) / 4);
  size_t shmem = per_block * sizeof(float);
  CUDA_CHECK(cudaFuncSetAttribute(chunk_squares, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  (int)shmem));
  float *d_loss;
  CUDA_CHECK(cudaMalloc(&d_loss, sizeof(float)));
  CUDA_CHECK(cudaMemset(d_loss, 0, sizeof(float)));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  chunk_squares<<<(n + per_block - 1) / per_block, 256, shmem>>>(d_loss, d_x, n, per_block);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  float loss;
  CUDA_CHECK(cudaMemcpy(&loss, d_loss, sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_loss));
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  return loss;
}

float managed_energy(const float *x, int n) {
  float *m, *loss;
  CUDA_CHECK(cudaMallocManaged(&m, n * sizeof(float)));
  CUDA_CHECK(cudaMallocManaged(&loss, sizeof(float)));
  for (int i = 0; i < n; i++)
    m[i] = x[i];
  *loss = 0;
  int device;
  CUDA_CHECK(cudaGetDevice(&device));
  cudaMemLocation location = {cudaMemLocationTypeDevice, device};
  CUDA_CHECK(cudaMemAdvise(m, n * sizeof(float), cudaMemAdviseSetReadMostly, location));
  CUDA_CHECK(cudaMemPrefetchAsync(m, n * sizeof(float), location, 0, 0));
  chunk_squares<<<(n + 1023) / 1024, 128, 1024 * sizeof(float)>>>(loss, m, n, 1024);
  CUDA_CHECK(cudaDeviceSynchronize());
  float result = *loss;
  CUDA_CHECK(cudaFree(m));
  CUDA_CHECK(cudaFree(loss));
  return result;
}

int main() {
  require_device();
  const int n = 100000;
  std::vector<float> x(n), t(n), dx(n);
  double sum_sq = 0, directional = 0;
  for (int i = 0; i < n; i++) {
    x[i] = 0.5f * sinf(0.001f * i) + 0.05f;
    t[i] = cosf(0.003f * i);
    sum_sq += (double)x[i] * x[i];
    directional += 2.0 * x[i] * t[i];
  }
  float *d_x = to_device(x), *d_dx = device_alloc<float>(n), *d_t = to_device(t);
  check_cuda(cudaMemset(d_dx, 0, n * sizeof(float)), "memset");
  __enzyme_autodiff((void *)chunked_energy, enzyme_dup, d_x, d_dx, enzyme_const, n);
  check_kernel("gradient of chunked_energy");
  from_device(dx, d_dx);
  for (int i = 0; i < n; i++)
    check_close(dx[i], 2.0 * x[i], 1e-5, "chunked_energy: d x[%d]", i);
  float tangent = __enzyme_fwddiff((void *)chunked_energy, enzyme_dup, d_x, d_t, enzyme_const, n);
  check_kernel("tangent of chunked_energy");
  check_close(tangent, directional, 1e-3, "chunked_energy: forward mode");
  check_close(chunked_energy(d_x, n), sum_sq, 1e-3, "chunked_energy: value");

  std::vector<float> hdx(n, 0.0f);
  __enzyme_autodiff((void *)managed_energy, enzyme_dup, x.data(), hdx.data(), enzyme_const, n);
  check_kernel("gradient of managed_energy");
  for (int i = 0; i < n; i++)
    check_close(hdx[i], 2.0 * x[i], 1e-5, "managed_energy: d x[%d]", i);
  float managed_tangent =
      __enzyme_fwddiff((void *)managed_energy, enzyme_dup, x.data(), t.data(), enzyme_const, n);
  check_kernel("tangent of managed_energy");
  check_close(managed_tangent, directional, 1e-3, "managed_energy: forward mode");
  device_free_all();
  return check_exit();
}
