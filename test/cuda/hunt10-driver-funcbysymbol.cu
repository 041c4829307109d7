// A .cu file that mixes the runtime and the driver API, as code built on a
// library that wants a CUfunction does: the kernel's driver handle comes
// from cudaGetFuncBySymbol (before, a compile error: "CUDA API function
// 'cudaGetFuncBySymbol' has no derivative rule"), the launch is
// cuLaunchKernel with an argument array holding an active by-value float,
// and the result comes back with cuMemcpyDtoH into a std::vector summed on
// the host. loss = sum_i w_i softplus(a x_i): dx_i = w_i a s_i, da = sum_i
// w_i x_i s_i with s the logistic of a x. Reverse and forward mode.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK-DAG: call {{.*}}@cudaGetFuncBySymbol(
// CHECK-DAG: call {{.*}}ptr @__kinase_driver_launch_augment(
// CHECK-DAG: call void @__kinase_driver_launch_reverse(
// CHECK-DAG: call void @__kinase_driver_launch_tangent(
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_

#include <kinase.h>
#include <cuda.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 1000 };

__global__ void softplus_scaled(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = log1pf(expf(a * x[i]));
}

float weighted_softplus(const float *x, float *y, float a, const float *w, int n) {
  cudaFunction_t kernel;
  cudaGetFuncBySymbol(&kernel, (const void *)softplus_scaled);
  void *args[] = {&y, &x, &a, &n};
  cuLaunchKernel((CUfunction)kernel, (n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL);
  std::vector<float> host(n);
  cuMemcpyDtoH(host.data(), (CUdeviceptr)y, n * sizeof(float));
  float total = 0;
  for (int i = 0; i < n; i++)
    total += w[i] * host[i];
  return total;
}

int main() {
  require_device();
  const float a = 1.3f;
  std::vector<float> x(N), w(N), tx(N);
  for (int i = 0; i < N; i++) {
    x[i] = 2.0f * sinf(0.01f * i * i);
    w[i] = 1.0f + 0.5f * cosf(0.3f * i);
    tx[i] = cosf(0.7f * i);
  }
  float *d_x = to_device(x), *d_dx = device_alloc<float>(N), *d_tx = to_device(tx);
  float *d_y = device_alloc<float>(N), *d_dy = device_alloc<float>(N);
  check_cuda(cudaMemset(d_dx, 0, N * sizeof(float)), "memset");
  check_cuda(cudaMemset(d_dy, 0, N * sizeof(float)), "memset");
  double da = __enzyme_autodiff((void *)weighted_softplus, enzyme_dup, d_x, d_dx, enzyme_dup, d_y,
                                d_dy, enzyme_out, a, enzyme_const, w.data(), enzyme_const, N);
  check_kernel("gradient of weighted_softplus");
  std::vector<float> dx(N), y(N);
  from_device(dx, d_dx);
  from_device(y, d_y);
  check_cuda(cudaMemset(d_dy, 0, N * sizeof(float)), "memset");
  double tangent = __enzyme_fwddiff((void *)weighted_softplus, enzyme_dup, d_x, d_tx, enzyme_dup,
                                    d_y, d_dy, enzyme_dup, a, 0.25f, enzyme_const, w.data(),
                                    enzyme_const, N);
  check_kernel("tangent of weighted_softplus");
  double da_want = 0, t_want = 0;
  for (int i = 0; i < N; i++) {
    double s = 1.0 / (1.0 + exp(-(double)a * x[i]));
    double want = w[i] * a * s;
    check_close(dx[i], want, 1e-4, "dx[%d]", i);
    check_close(y[i], log1p(exp((double)a * x[i])), 1e-5, "y[%d]", i);
    da_want += w[i] * x[i] * s;
    t_want += want * tx[i];
  }
  t_want += 0.25 * da_want;
  check_close(da, da_want, 1e-4, "da");
  check_close(tangent, t_want, 1e-4, "tangent along (tx, 0.25)");
  device_free_all();
  return check_exit();
}
