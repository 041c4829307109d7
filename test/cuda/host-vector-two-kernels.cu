// A host function taking host data: a std::vector local, device buffers
// allocated inside it (one an intermediate between two kernels, the second
// reading what the first wrote), copies in and out, and a sum on the host.
// z[i] = tanh(a x[i]) tanh(a x[i+1]) summed: the gradient lands in the host
// shadow of x (analytic) and in a, an active by-value float (checked against
// central differences).
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
// The allocations get shadows (through the cudaMalloc<T> template's
// derivative); both launches are recorded and reversed, the copies too.
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_autodiff
// CHECK-DAG: call ptr @__kinase_shadow_alloc(
// CHECK-DAG: @__kinase_launch_augment(ptr {{.*}}activate
// CHECK-DAG: @__kinase_launch_augment(ptr {{.*}}neighbours
// CHECK-DAG: call void @__kinase_copy_reverse(

#include <kinase.h>
#include <vector>
#include "cuda_check.h"

// y = tanh(a x) elementwise, then z[i] = y[i] * y[(i + 1) % n]
__global__ void activate(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = tanhf(a * x[i]);
}
__global__ void neighbours(float *z, const float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    z[i] = y[i] * y[(i + 1) % n];
}

// The host function: host vector in, a device intermediate allocated here,
// the result copied back into a vector and summed on the host.
float pipeline(const float *host_x, float a, int n) {
  std::vector<float> z(n);
  float *d_x, *d_y, *d_z;
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  cudaMalloc(&d_z, n * sizeof(float));
  cudaMemcpy(d_x, host_x, n * sizeof(float), cudaMemcpyHostToDevice);
  activate<<<(n + 255) / 256, 256>>>(d_y, d_x, a, n);
  neighbours<<<(n + 255) / 256, 256>>>(d_z, d_y, n);
  cudaMemcpy(z.data(), d_z, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d_x);
  cudaFree(d_y);
  cudaFree(d_z);
  float s = 0;
  for (int i = 0; i < n; i++)
    s += z[i];
  return s;
}

static double reference(const std::vector<float> &x, double a) {
  int n = (int)x.size();
  double s = 0;
  for (int i = 0; i < n; i++)
    s += tanh(a * x[i]) * tanh(a * x[(i + 1) % n]);
  return s;
}

int main() {
  require_device();
  const int n = 777;
  const float a = 0.8f;
  std::vector<float> x(n), dx(n, 0.0f);
  for (int i = 0; i < n; i++)
    x[i] = 0.9f * sinf(0.3f * i);
  double da = __enzyme_autodiff((void *)pipeline, enzyme_dup, x.data(), dx.data(), enzyme_out, a,
                                enzyme_const, n);
  check_kernel("gradient of pipeline");
  for (int i = 0; i < n; i++) {
    int prev = (i + n - 1) % n, next = (i + 1) % n;
    double t = tanh(a * x[i]), dt = a * (1 - t * t);
    double want = dt * (tanh(a * x[next]) + tanh(a * x[prev]));
    check_close(dx[i], want, 1e-4, "dx[%d]", i);
  }
  double h = 1e-3;
  double fd = (reference(x, a + h) - reference(x, a - h)) / (2 * h);
  check_close(da, fd, 1e-3, "d a (central difference)");
  return check_exit();
}
