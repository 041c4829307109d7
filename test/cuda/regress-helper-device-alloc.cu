// Regression: device memory allocated by a host helper and returned. A
// helper `float *zeroed_scalar() { float *d; cudaMalloc(&d, 4);
// cudaMemset(d, 0, 4); return d; }` returns a load of a local that only
// cudaMalloc fills (through cuda_runtime.h's overload cudaMalloc<T>, whose
// own parameter is spilled at -O0 before it reaches cudaMalloc). That was
// not seen as fresh memory: the call was inactive, its result had no
// shadow, the reverse launch passed null for it and the gradient was
// silently 0 (found on the H200 in session 15: every gradient of
// hunt14-half-shuffle-gather was 0).
//   loss = sum_i x_i^2 + 3 sum_i sin(x_i)     d/dx_i = 2 x_i + 3 cos(x_i)
// The sum of squares goes through a scalar from zeroed_scalar, summed by
// atomicAdd and read back by a helper that also frees it; the sines through
// a buffer from a helper written with void ** and a cast. Forward mode
// along a direction against the gradient.
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
// The helpers are differentiated: their memory gets a shadow beside it.
// CHECK-DAG: call ptr @__kinase_shadow_alloc({{.*}}@kinase.text._ZL13zeroed_scalarv)
// CHECK-DAG: call ptr @__kinase_shadow_alloc({{.*}}@kinase.text._ZL13device_bufferi)

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 1000, THREADS = 128 };

__global__ void sum_squares(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(out, x[i] * x[i]);
}

__global__ void sines(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = sinf(x[i]);
}

static float *zeroed_scalar() {
  float *d;
  cudaMalloc(&d, sizeof(float));
  cudaMemset(d, 0, sizeof(float));
  return d;
}

static float *device_buffer(int n) {
  void *p = nullptr;
  if (cudaMalloc(&p, n * sizeof(float)) != cudaSuccess)
    return nullptr;
  return static_cast<float *>(p);
}

static float read_scalar(float *d) {
  float h = 0;
  cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(d);
  return h;
}

float loss(const float *x, int n) {
  float *out = zeroed_scalar();
  float *y = device_buffer(n);
  sum_squares<<<blocks_for(n, THREADS), THREADS>>>(x, out, n);
  sines<<<blocks_for(n, THREADS), THREADS>>>(x, y, n);
  std::vector<float> h(n);
  cudaMemcpy(h.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(y);
  float s = read_scalar(out);
  for (int i = 0; i < n; i++)
    s += 3.0f * h[i];
  return s;
}

int main() {
  require_device();
  std::vector<float> x(N), tx(N);
  for (int i = 0; i < N; i++) {
    x[i] = 0.9f * sinf(0.37f * i);
    tx[i] = cosf(0.21f * i);
  }
  float *d_x = to_device(x), *d_dx = device_alloc<float>(N), *d_tx = to_device(tx);
  check_cuda(cudaMemset(d_dx, 0, N * sizeof(float)), "memset");
  __enzyme_autodiff((void *)loss, enzyme_dup, d_x, d_dx, enzyme_const, N);
  check_kernel("gradient of loss");
  double t = __enzyme_fwddiff((void *)loss, enzyme_dup, d_x, d_tx, enzyme_const, N);
  check_kernel("tangent of loss");
  std::vector<float> dx(N);
  from_device(dx, d_dx);
  double t_want = 0;
  for (int i = 0; i < N; i++) {
    double want = 2.0 * x[i] + 3.0 * cos((double)x[i]);
    check_close(dx[i], want, 1e-4, "dloss/dx[%d]", i);
    t_want += want * tx[i];
  }
  check_close(t, t_want, 1e-3, "tangent of loss");
  device_free_all();
  return check_exit();
}
