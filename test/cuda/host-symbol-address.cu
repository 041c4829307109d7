// Device memory reached through the address of a __device__ variable
// (cudaGetSymbolAddress) in differentiated host code:
//  - scratch: a __device__ array used as the buffer between two kernels,
//    y = 2 x into it, then sum y^2 added into an output: d x = 8 x, in
//    reverse mode twice in a row (the runtime's shadow of the array starts
//    from zero each time) and in forward mode;
//  - total: a kernel adds x^2 into `__device__ float g_total` by name, and
//    the host reads it through its address with cudaMemcpy: the address's
//    shadow is the device module's shadow of g_total, which the reverse
//    kernel reads: d x = 2 x.
// Before, cudaGetSymbolAddress had no rule: "CUDA API function
// 'cudaGetSymbolAddress' has no derivative rule in Kinase".
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
// The address's shadow: the module's (null for g_scratch, which no kernel
// writes by name), else the runtime's; given back after the reverse sweep.
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_
// CHECK-DAG: [[MODULE:%[0-9a-z.]+]] = call ptr @__kinase_symbol_shadow(ptr {{.*}}@kinase.text.g_scratch, i64 0,
// CHECK-DAG: [[SHADOW:%[0-9a-z.]+]] = call ptr @__kinase_variable_shadow(ptr %{{[0-9a-z.]+}}, ptr [[MODULE]],
// CHECK-DAG: call void @__kinase_variable_shadow_release(ptr [[SHADOW]],
// CHECK-DAG: call ptr @__kinase_symbol_shadow(ptr {{.*}}@kinase.text.g_total, i64 0,

#include <kinase.h>
#include <vector>
#include "cuda_check.h"

enum { N = 1000 };

__device__ float g_scratch[N];
__device__ float g_total;

__global__ void twice(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = 2.0f * x[i];
}

__global__ void add_squares(const float *y, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(out, y[i] * y[i]);
}

__global__ void total_squares(const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&g_total, x[i] * x[i]);
}

void scratch(const float *d_x, float *d_out, int n) {
  float *buffer;
  cudaGetSymbolAddress((void **)&buffer, g_scratch);
  twice<<<(n + 255) / 256, 256>>>(d_x, buffer, n);
  add_squares<<<(n + 255) / 256, 256>>>(buffer, d_out, n);
}

float total(const float *d_x, int n) {
  float *sum, result, zero = 0;
  cudaGetSymbolAddress((void **)&sum, g_total);
  cudaMemcpy(sum, &zero, sizeof zero, cudaMemcpyHostToDevice);
  total_squares<<<(n + 127) / 128, 128>>>(d_x, n);
  cudaMemcpy(&result, sum, sizeof result, cudaMemcpyDeviceToHost);
  return result;
}

int main() {
  require_device();
  std::vector<float> x(N), t(N), dx(N), out(1);
  double directional = 0;
  for (int i = 0; i < N; i++) {
    x[i] = 0.5f * sinf(0.013f * i) + 0.1f;
    t[i] = cosf(0.031f * i);
    directional += 8.0 * x[i] * t[i];
  }
  float *d_x = to_device(x), *d_dx = device_alloc<float>(N), *d_t = to_device(t);
  float *d_out = device_alloc<float>(1), *d_dout = device_alloc<float>(1), *d_tout = device_alloc<float>(1);

  for (int round = 0; round < 2; round++) {
    const float one = 1.0f;
    check_cuda(cudaMemset(d_dx, 0, N * sizeof(float)), "memset");
    check_cuda(cudaMemset(d_out, 0, sizeof(float)), "memset");
    check_cuda(cudaMemcpy(d_dout, &one, sizeof one, cudaMemcpyHostToDevice), "seed");
    __enzyme_autodiff((void *)scratch, enzyme_dup, d_x, d_dx, enzyme_dup, d_out, d_dout,
                      enzyme_const, (int)N);
    check_kernel("gradient of scratch");
    from_device(dx, d_dx);
    for (int i = 0; i < N; i++)
      check_close(dx[i], 8.0 * x[i], 1e-5, "scratch, round %d: d x[%d]", round, i);
  }
  check_cuda(cudaMemset(d_out, 0, sizeof(float)), "memset");
  check_cuda(cudaMemset(d_tout, 0, sizeof(float)), "memset");
  __enzyme_fwddiff((void *)scratch, enzyme_dup, d_x, d_t, enzyme_dup, d_out, d_tout, enzyme_const,
                   (int)N);
  check_kernel("tangent of scratch");
  from_device(out, d_tout);
  check_close(out[0], directional, 1e-4, "scratch: forward mode");

  check_cuda(cudaMemset(d_dx, 0, N * sizeof(float)), "memset");
  __enzyme_autodiff((void *)total, enzyme_dup, d_x, d_dx, enzyme_const, (int)N);
  check_kernel("gradient of total");
  from_device(dx, d_dx);
  for (int i = 0; i < N; i++)
    check_close(dx[i], 2.0 * x[i], 1e-5, "total: d x[%d]", i);
  device_free_all();
  return check_exit();
}
