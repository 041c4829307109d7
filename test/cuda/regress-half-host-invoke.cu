// Regression: host __half conversions called by invoke. In a host function
// with C++ locals that have destructors (a std::vector), clang invokes
// __float2half, __half2float, __float2bfloat16 and __bfloat162float; Kinase
// read only calls of them as the conversions they are, so invoked ones
// stayed integer code on the bits, through which no adjoint flows: the
// gradient through a __half read back from the device was silently 0 (what
// made atomicAdd on __half look wrong on the H200), as was the one of a
// float converted to __half and copied to the device.
//   loss = wh * sum_i x_i^2 (accumulated in half) + wb * sum_i x_i (bfloat16)
//          + sum_i half(a) x_i                     (a converted on the host)
// d/dx_i = 2 wh x_i + wb + a, d/da = sum_i x_i; forward mode along x.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The reverse sweep adds the results' adjoints into their half and
// bfloat16 shadows, and the copies back reverse with half (2) and bfloat16
// (258) elements; a's adjoint comes back through the conversion. (The
// primal's conversions are integer code: half arithmetic is the derivative's.)
// CHECK-DAG:   fadd bfloat
// CHECK-DAG:   fadd half
// CHECK-DAG:   call void @__kinase_copy_reverse({{.*}}, i64 2, i32 2, ptr {{[^,]+}}, i32 2, ptr
// CHECK-DAG:   call void @__kinase_copy_reverse({{.*}}, i64 2, i32 2, ptr {{[^,]+}}, i32 258, ptr
// CHECK-DAG:   fpext half

#include <kinase.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 500, THREADS = 128 };

__global__ void sums(__half *hsum, __nv_bfloat16 *bsum, float *scaled, const float *x,
                     const __half *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  atomicAdd(hsum, __float2half(x[i] * x[i]));
  atomicAdd(bsum, __float2bfloat16(x[i]));
  scaled[i] = __half2float(*a) * x[i];
}

float loss(const float *x, float a, float wh, float wb, int n) {
  __half *hsum, *d_a;
  __nv_bfloat16 *bsum;
  float *scaled;
  cudaMalloc(&hsum, sizeof(__half));
  cudaMalloc(&bsum, sizeof(__nv_bfloat16));
  cudaMalloc(&d_a, sizeof(__half));
  cudaMalloc(&scaled, n * sizeof(float));
  cudaMemset(hsum, 0, sizeof(__half));
  cudaMemset(bsum, 0, sizeof(__nv_bfloat16));
  __half ha = __float2half(a);
  cudaMemcpy(d_a, &ha, sizeof ha, cudaMemcpyHostToDevice);
  sums<<<(n + THREADS - 1) / THREADS, THREADS>>>(hsum, bsum, scaled, x, d_a, n);
  std::vector<float> s(n);
  __half h;
  __nv_bfloat16 bf;
  cudaMemcpy(&h, hsum, sizeof h, cudaMemcpyDeviceToHost);
  cudaMemcpy(&bf, bsum, sizeof bf, cudaMemcpyDeviceToHost);
  cudaMemcpy(s.data(), scaled, n * sizeof(float), cudaMemcpyDeviceToHost);
  float total = wh * __half2float(h) + wb * __bfloat162float(bf);
  for (int i = 0; i < n; i++)
    total += s[i];
  cudaFree(hsum);
  cudaFree(bsum);
  cudaFree(d_a);
  cudaFree(scaled);
  return total;
}

int main() {
  require_device();
  const float a = 0.75f, wh = 0.5f, wb = 2.0f;
  std::vector<float> x(N), tx(N);
  double sum_x = 0;
  for (int i = 0; i < N; i++) {
    x[i] = 0.05f * (1.0f + sinf(0.3f * i));
    // bsum's tangent is summed by bfloat16 atomics (8 significant bits),
    // rounded at each add as the primal's sum is: with cos(0.2 i) it was
    // 0.2 to 0.33 off, from run to run. Multiples of 1/32 whose partial
    // sums stay below 8 add exactly in any order.
    tx[i] = ((i % 4) - 1) / 32.0f;
    sum_x += x[i];
  }
  float *d_x = to_device(x), *d_dx = device_alloc<float>(N), *d_tx = to_device(tx);
  check_cuda(cudaMemset(d_dx, 0, N * sizeof(float)), "memset");
  float da = __enzyme_autodiff((void *)loss, enzyme_dup, d_x, d_dx, enzyme_out, a, enzyme_const, wh,
                               enzyme_const, wb, enzyme_const, N);
  check_kernel("gradient of loss");
  double tangent = __enzyme_fwddiff((void *)loss, enzyme_dup, d_x, d_tx, enzyme_const, a, enzyme_const,
                                    wh, enzyme_const, wb, enzyme_const, N);
  check_kernel("tangent of loss");
  std::vector<float> dx(N);
  from_device(dx, d_dx);
  double t_want = 0;
  for (int i = 0; i < N; i++) {
    double want = 2.0 * wh * x[i] + wb + a;
    check_close(dx[i], want, 1e-2, "dloss/dx[%d]", i);
    t_want += want * tx[i];
  }
  check_close(da, sum_x, 2e-2, "dloss/da");
  check_close(tangent, t_want, 2e-2, "tangent");
  device_free_all();
  return check_exit();
}
