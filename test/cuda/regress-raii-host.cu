// Issue 12's CUDA case: host code written as C++ users write it. The request
// sits in a function whose locals are RAII objects (std::vector and a device
// buffer class freeing in its destructor), so it is an invoke, not a call;
// the differentiated host function itself fills a std::vector local from
// the device and sums it on the host: loss(x) = sum((2 x)^2) over a kernel
// doubling x, whose gradient is 8 x.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --check-prefixes=CHECK,O0 --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The request, an invoke, is replaced by the derivative, invoked in its
// place (the destructors stay on the unwinding path); at -O2 all of it is
// inlined.
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_autodiff
// O0: invoke {{.*}} @__kinase_aug__Z4lossPKfPfi(
// O0: invoke void @__kinase_rev__Z4lossPKfPfi(
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_autodiff

#include <kinase.h>
#include <vector>
#include "cuda_check.h"

__global__ void twice(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = 2.0f * x[i];
}

// Device memory owned by an object: freed when it goes out of scope.
struct DeviceBuffer {
  float *p = nullptr;
  explicit DeviceBuffer(size_t n) { check_cuda(cudaMalloc(&p, n * sizeof(float)), "cudaMalloc"); }
  DeviceBuffer(const std::vector<float> &host) : DeviceBuffer(host.size()) {
    check_cuda(cudaMemcpy(p, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice),
               "copy to the device");
  }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  std::vector<float> to_host(size_t n) const {
    std::vector<float> host(n);
    check_cuda(cudaMemcpy(host.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost),
               "copy to the host");
    return host;
  }
};

// loss(x) = sum((2 x)^2): the kernel doubles x into y, the host sums the
// squares of a std::vector copy (a RAII local of the differentiated
// function).
float loss(const float *x, float *y, int n) {
  twice<<<(n + 127) / 128, 128>>>(y, x, n);
  std::vector<float> host(n);
  cudaMemcpy(host.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
  float sum = 0.0f;
  for (float v : host)
    sum += v * v;
  return sum;
}

// The request among RAII locals.
static std::vector<float> gradient(const std::vector<float> &x) {
  size_t n = x.size();
  DeviceBuffer d_x(x), d_dx(std::vector<float>(n, 0.0f));
  DeviceBuffer d_y(n), d_dy(std::vector<float>(n, 0.0f));
  __enzyme_autodiff((void *)loss, enzyme_dup, d_x.p, d_dx.p, enzyme_dup, d_y.p, d_dy.p,
                    enzyme_const, (int)n);
  return d_dx.to_host(n);
}

int main(void) {
  require_device();
  const int N = 3000;
  std::vector<float> x(N);
  for (int i = 0; i < N; i++)
    x[i] = 0.001f * (float)(i % 101) - 0.04f;
  std::vector<float> g = gradient(x);
  for (int i = 0; i < N; i++)
    check_close(g[i], 8.0 * x[i], 1e-5, "dloss/dx[%d]", i);
  return check_exit();
}
