// Warp-aggregated atomics as CUDA users write them: each warp sums its
// lanes' values with a __shfl_xor_sync butterfly, elects a leader with
// __ffs of a ballot (the first lane holding a value) and only the leader
// adds the warp's total into the result. __ffs is assembly (bfind), an
// integer operation that carries no derivative; such assembly used to be
// refused, leaving the kernel without derivative kernels ("it contains
// inline assembly ('bfind.shiftamt.u32 $0,$1')"). Reverse and forward
// mode of sum(exp(x_i) * w_i) over a launch whose last warp is partial.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK-NOT: __kinase_kwhy
// CHECK: .entry __kinase_krev_{{[a-z]+}}__Z10warp_total

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 1000 };

__global__ void warp_total(const float *x, const float *w, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? expf(x[i]) * w[i] : 0.f;
  for (int m = 16; m > 0; m >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, m);
  unsigned holders = __ballot_sync(0xffffffffu, i < n);
  int leader = __ffs(holders) - 1;
  if (holders && (threadIdx.x & 31) == leader)
    atomicAdd(out, v);
}

float total(const float *h_x, const float *h_w, int n) {
  float *x, *w, *out, result;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&w, n * sizeof(float));
  cudaMalloc(&out, sizeof(float));
  cudaMemcpy(x, h_x, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(w, h_w, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(out, 0, sizeof(float));
  warp_total<<<(n + 127) / 128, 128>>>(x, w, out, n);
  cudaMemcpy(&result, out, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(x);
  cudaFree(w);
  cudaFree(out);
  return result;
}

int main() {
  require_device();
  std::vector<float> x(N), w(N), dx(N, 0.0f), dw(N, 0.0f), tx(N), tw(N, 0.0f);
  double want_t = 0.0;
  for (int i = 0; i < N; i++) {
    x[i] = 0.5f * sinf(0.01f * i);
    w[i] = 1.0f + 0.001f * i;
    tx[i] = cosf(0.03f * i);
    want_t += exp((double)x[i]) * w[i] * tx[i];
  }
  __enzyme_autodiff((void *)total, enzyme_dup, x.data(), dx.data(), enzyme_dup, w.data(), dw.data(),
                    enzyme_const, N);
  check_kernel("gradient of total");
  for (int i = 0; i < N; i++) {
    check_close(dx[i], exp((double)x[i]) * w[i], 1e-5, "dx[%d]", i);
    check_close(dw[i], exp((double)x[i]), 1e-5, "dw[%d]", i);
  }
  double t = __enzyme_fwddiff((void *)total, enzyme_dup, x.data(), tx.data(), enzyme_dup, w.data(), tw.data(),
                              enzyme_const, N);
  check_kernel("tangent of total");
  check_close(t, want_t, 1e-4, "tangent");
  return check_exit();
}
