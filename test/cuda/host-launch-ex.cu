// Launches through cudaLaunchKernelEx, as CUDA 12 programs write them:
//  - loss_template: the C++ template cudaLaunchKernelEx(&config, kernel,
//    args...) with a cudaLaunchConfig_t whose stream comes from
//    cudaStreamCreateWithFlags (a handle stored into a local that has a
//    shadow: null in the shadow), the result copied back with
//    cudaMemcpyAsync(..., cudaMemcpyDefault, stream);
//  - loss_c: cudaLaunchKernelExC(&config, (const void *)kernel, args) with
//    the argument array built by hand and a launch attribute (priority).
// out[i] = alpha * x[i]^2 summed on the host: d x = 2 alpha x, d alpha =
// sum x^2 (analytic), both ways in.
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
// The runtime launches in place of cudaLaunchKernelExC, with the user's
// configuration, and its reverse kernel after.
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_
// CHECK-DAG: call ptr @__kinase_direct_launch_ex_augment(ptr {{.*}}, ptr {{.*}}@_Z21__device_stub__squarePfPKffi,
// CHECK-DAG: call void @__kinase_driver_launch_reverse(
// CHECK-DAG: call void @__kinase_direct_launch_ex_tangent(ptr {{.*}}, ptr {{.*}}@_Z21__device_stub__squarePfPKffi,
// CHECK-DAG: call void @__kinase_copy_reverse({{.*}}, i32 4, ptr

#include <kinase.h>
#include <vector>
#include "cuda_check.h"

__global__ void square(float *y, const float *x, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = alpha * x[i] * x[i];
}

float loss_template(const float *d_x, float alpha, int n) {
  float *d_y;
  cudaMalloc(&d_y, n * sizeof(float));
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3((n + 127) / 128);
  config.blockDim = dim3(128);
  config.stream = stream;
  cudaLaunchKernelEx(&config, square, d_y, d_x, alpha, n);
  std::vector<float> y(n);
  cudaMemcpyAsync(y.data(), d_y, n * sizeof(float), cudaMemcpyDefault, stream);
  cudaStreamSynchronize(stream);
  float total = 0;
  for (int i = 0; i < n; i++)
    total += y[i];
  cudaFree(d_y);
  cudaStreamDestroy(stream);
  return total;
}

float loss_c(const float *d_x, float alpha, int n) {
  float *d_y;
  cudaMalloc(&d_y, n * sizeof(float));
  cudaLaunchAttribute priority;
  priority.id = cudaLaunchAttributePriority;
  priority.val.priority = 0;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3((n + 63) / 64);
  config.blockDim = dim3(64);
  config.attrs = &priority;
  config.numAttrs = 1;
  void *args[] = {&d_y, (void *)&d_x, &alpha, &n};
  cudaLaunchKernelExC(&config, (const void *)square, args);
  float *y = (float *)malloc(n * sizeof(float));
  cudaMemcpy(y, d_y, n * sizeof(float), cudaMemcpyDeviceToHost);
  float total = 0;
  for (int i = 0; i < n; i++)
    total += y[i];
  free(y);
  cudaFree(d_y);
  return total;
}

typedef float (*Loss)(const float *, float, int);

// Both ways in, for one loss: the request names the function itself.
template <Loss loss>
static void check_loss(const char *name, const std::vector<float> &x, float *d_x, float *d_dx,
                       float *d_t, float alpha, double sum_sq, double directional) {
  int n = (int)x.size();
  std::vector<float> dx(n);
  check_cuda(cudaMemset(d_dx, 0, n * sizeof(float)), "memset");
  float dalpha = __enzyme_autodiff((void *)loss, enzyme_dup, d_x, d_dx, enzyme_out, alpha,
                                   enzyme_const, n);
  check_kernel(name);
  from_device(dx, d_dx);
  for (int i = 0; i < n; i++)
    check_close(dx[i], 2.0 * alpha * x[i], 1e-5, "%s: d x[%d]", name, i);
  check_close(dalpha, sum_sq, 1e-4, "%s: d alpha", name);
  float tangent = __enzyme_fwddiff((void *)loss, enzyme_dup, d_x, d_t, enzyme_dup, alpha, 1.0f,
                                   enzyme_const, n);
  check_kernel(name);
  check_close(tangent, directional + sum_sq, 1e-4, "%s: forward mode", name);
  check_close(loss(d_x, alpha, n), alpha * sum_sq, 1e-5, "%s: value", name);
}

int main() {
  require_device();
  const int n = 1000;
  const float alpha = 0.75f;
  std::vector<float> x(n), t(n);
  double sum_sq = 0, directional = 0;
  for (int i = 0; i < n; i++) {
    x[i] = 0.5f * sinf(0.013f * i) + 0.1f;
    t[i] = cosf(0.07f * i);
    sum_sq += (double)x[i] * x[i];
    directional += 2.0 * alpha * x[i] * t[i];
  }
  float *d_x = to_device(x), *d_dx = device_alloc<float>(n), *d_t = to_device(t);
  check_loss<loss_template>("loss_template", x, d_x, d_dx, d_t, alpha, sum_sq, directional);
  check_loss<loss_c>("loss_c", x, d_x, d_dx, d_t, alpha, sum_sq, directional);
  device_free_all();
  return check_exit();
}
