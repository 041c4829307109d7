// Device buffers in std::unique_ptr<float, decltype(&cudaFree)>, whose
// destructor calls cudaFree through the stored function pointer (an
// indirect call, compared with cudaFree in the derivative and deferred to
// the end of the reverse sweep), and a lambda capturing by reference that
// launches the kernel, called twice with the buffers swapped around.
// y = p(p(x)) with p(v) = c0 + v (c1 + v c2); reverse mode (x, c) and
// forward mode (along x and c).
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The deleter's call is deferred where it is cudaFree.
// CHECK: icmp eq ptr %{{.*}}, @cudaFree
// CHECK: call void @__kinase_defer_release(

#include <kinase.h>
#include <math.h>
#include <memory>
#include <vector>
#include "cuda_check.h"

enum { N = 500 };

using DevPtr = std::unique_ptr<float, decltype(&cudaFree)>;

static DevPtr make_dev(size_t n) {
  float *p = nullptr;
  cudaMalloc(&p, n * sizeof(float));
  return DevPtr(p, &cudaFree);
}

__global__ void poly(float *y, const float *x, const float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = c[0] + x[i] * (c[1] + x[i] * c[2]);
}

void apply_twice(const float *hx, const float *hc, float *hy, int n) {
  auto x = make_dev(n), y = make_dev(n), c = make_dev(3);
  cudaMemcpy(x.get(), hx, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(c.get(), hc, 3 * sizeof(float), cudaMemcpyHostToDevice);
  auto launch = [&](float *out, const float *in) { poly<<<(n + 127) / 128, 128>>>(out, in, c.get(), n); };
  launch(y.get(), x.get());
  launch(x.get(), y.get());
  cudaMemcpy(hy, x.get(), n * sizeof(float), cudaMemcpyDeviceToHost);
}

int main() {
  require_device();
  std::vector<float> x(N), y(N), dx(N, 0.0f), dy(N), seed(N);
  float c[3] = {0.1f, 0.9f, -0.3f}, dc[3] = {0, 0, 0};
  for (int i = 0; i < N; i++) {
    x[i] = 0.002f * i;
    seed[i] = dy[i] = 1.0f + 0.001f * i;
  }
  __enzyme_autodiff((void *)apply_twice, enzyme_dup, x.data(), dx.data(), enzyme_dup, c, dc, enzyme_dupnoneed,
                    y.data(), dy.data(), enzyme_const, N);
  check_kernel("gradient of apply_twice");
  double gc[3] = {0, 0, 0};
  for (int i = 0; i < N; i++) {
    double v = x[i], p = c[0] + v * (c[1] + v * c[2]);
    double outer = c[1] + 2 * c[2] * p, inner = c[1] + 2 * c[2] * v, s = seed[i];
    check_close(dx[i], s * outer * inner, 1e-4, "dx[%d]", i);
    gc[0] += s * (1 + outer);
    gc[1] += s * (p + outer * v);
    gc[2] += s * (p * p + outer * v * v);
  }
  for (int k = 0; k < 3; k++)
    check_close(dc[k], gc[k], 1e-4, "dc[%d]", k);
  std::vector<float> tx(N), ty(N);
  float tc[3] = {0.5f, -1.0f, 2.0f};
  for (int i = 0; i < N; i++)
    tx[i] = cosf(0.01f * i);
  __enzyme_fwddiff((void *)apply_twice, enzyme_dup, x.data(), tx.data(), enzyme_dup, c, tc, enzyme_dup, y.data(),
                   ty.data(), enzyme_const, N);
  check_kernel("tangent of apply_twice");
  for (int i = 0; i < N; i++) {
    double v = x[i], p = c[0] + v * (c[1] + v * c[2]);
    double tp = tc[0] + tx[i] * (c[1] + 2 * c[2] * v) + v * tc[1] + v * v * tc[2];
    double want = tc[0] + tp * (c[1] + 2 * c[2] * p) + p * tc[1] + p * p * tc[2];
    check_close(y[i], c[0] + p * (c[1] + p * c[2]), 1e-5, "y[%d]", i);
    check_close(ty[i], want, 1e-4, "ty[%d]", i);
  }
  return check_exit();
}
