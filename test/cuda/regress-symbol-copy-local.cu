// Regression: cudaMemcpyToSymbol of a local array of coefficients computed
// from constants and an integer (no derivative) inside a differentiated host
// function. A local holding floats has a shadow, so its address looked like
// "values that carry derivatives", and the copy was an error inside
// cuda_runtime.h's template overload. The overload is now inlined and the
// local seen to hold only values without derivatives. The kernel reads the
// coefficients from __constant__ memory; the loss is summed on the host:
// loss = sum_i x_i (c0 x_i + c1), d/dx_i = 2 c0 x_i + c1. Forward mode along t.
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
// The copy is made as written, by the request's augmented sweep and by the
// forward-mode function.
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_
// CHECK-DAG: {{call|invoke}} {{.*}}i32 @cudaMemcpyToSymbol(ptr {{.*}}@coefficients,
// CHECK-DAG: {{call|invoke}} {{.*}}ptr @__kinase_launch_augment(
// CHECK-DAG: {{call|invoke}} void @__kinase_launch_tangent(

#include <kinase.h>
#include <vector>
#include "cuda_check.h"

enum { N = 3000 };

__constant__ float coefficients[2];

// y = x (c0 x + c1)
__global__ void horner(float *y, const float *x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float v = x[i];
    y[i] = v * (coefficients[0] * v + coefficients[1]);
  }
}

float loss(const float *x, int n, int order) {
  float c[2] = {0.5f * order, -1.0f};
  cudaMemcpyToSymbol(coefficients, c, sizeof c);
  float *y;
  cudaMalloc(&y, n * sizeof(float));
  horner<<<(n + 511) / 512, 256>>>(y, x, n);
  std::vector<float> host(n);
  cudaMemcpy(host.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(y);
  float s = 0;
  for (float v : host)
    s += v;
  return s;
}

int main(void) {
  require_device();
  std::vector<float> x(N), t(N);
  for (int i = 0; i < N; i++) {
    x[i] = 0.01f * (i % 200) - 1.0f;
    t[i] = 0.2f * (i % 5) - 0.4f;
  }
  float *d_x = to_device(x), *d_t = to_device(t), *d_dx = device_alloc<float>(N);
  check_cuda(cudaMemset(d_dx, 0, N * sizeof(float)), "memset");
  const int order = 3; /* c0 = 1.5 */
  __enzyme_autodiff((void *)loss, enzyme_dup, d_x, d_dx, enzyme_const, N, enzyme_const, order);
  check_kernel("gradient of loss");
  std::vector<float> dx(N);
  from_device(dx, d_dx);
  double along = 0, scale = 0; /* the float sums' rounding grows with scale */
  for (int i = 0; i < N; i++) {
    check_close(dx[i], 2.0 * 1.5 * x[i] - 1.0, 1e-5, "d/dx[%d]", i);
    along += (2.0 * 1.5 * x[i] - 1.0) * t[i];
    scale += fabs((2.0 * 1.5 * x[i] - 1.0) * t[i]);
  }
  float tangent = __enzyme_fwddiff((void *)loss, enzyme_dup, d_x, d_t, enzyme_const, N, enzyme_const, order);
  check_kernel("tangent of loss");
  check_within(tangent, along, 1e-5 * scale, "tangent along t");
  device_free_all();
  return check_exit();
}
