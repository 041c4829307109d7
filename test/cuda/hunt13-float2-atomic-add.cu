// atomicAdd on float2 and float4 (sm_90), as particle codes accumulate 2-D
// forces and moment sums: clang's header writes them as assembly
// (atom.add.v2.f32, atom.add.v4.f32, and the .cta / .sys forms of
// atomicAdd_block and atomicAdd_system), which Kinase refused: the kernels
// had no derivative kernels ("it contains inline assembly ('atom.add.v2.f32
// ...')"). Each is now an atomic add per lane, differentiated as atomicAdd
// on floats: every value's adjoint is its accumulator's, read back.
//   force[b] += (x_i, x_i^2) for i in bin b;  moments += (x_i, 1, 2 x_i, x_i^2)
//   block[0] += (x_i, 0) per block (atomicAdd_block), total += (x_i, 0) (system)
//   loss = sum_b (u_b . force[b]) + v . moments + 2 block[0].x + 3 total.x
// Gradients against the analytic ones; forward mode along a direction.
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
// CHECK: .entry __kinase_krev_{{[a-z]+}}__Z10accumulate

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 2048, BINS = 8, THREADS = 256 };

__global__ void accumulate(float2 *force, float4 *moments, float2 *per_block, float2 *total, const float *x,
                           int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = x[i];
  atomicAdd(&force[i % BINS], make_float2(v, v * v));
  atomicAdd(moments, make_float4(v, 1.0f, 2.0f * v, v * v));
  atomicAdd_block(&per_block[blockIdx.x], make_float2(v, 0.0f));
  atomicAdd_system(total, make_float2(v, 0.0f));
}

float loss(const float *x, int n) {
  int blocks = (n + THREADS - 1) / THREADS;
  float2 *force, *per_block, *total;
  float4 *moments;
  cudaMalloc(&force, BINS * sizeof(float2));
  cudaMalloc(&moments, sizeof(float4));
  cudaMalloc(&per_block, blocks * sizeof(float2));
  cudaMalloc(&total, sizeof(float2));
  cudaMemset(force, 0, BINS * sizeof(float2));
  cudaMemset(moments, 0, sizeof(float4));
  cudaMemset(per_block, 0, blocks * sizeof(float2));
  cudaMemset(total, 0, sizeof(float2));
  accumulate<<<blocks, THREADS>>>(force, moments, per_block, total, x, n);
  std::vector<float2> f(BINS), pb(blocks), t(1);
  std::vector<float4> m(1);
  cudaMemcpy(f.data(), force, BINS * sizeof(float2), cudaMemcpyDeviceToHost);
  cudaMemcpy(m.data(), moments, sizeof(float4), cudaMemcpyDeviceToHost);
  cudaMemcpy(pb.data(), per_block, blocks * sizeof(float2), cudaMemcpyDeviceToHost);
  cudaMemcpy(t.data(), total, sizeof(float2), cudaMemcpyDeviceToHost);
  float sum = 2.0f * pb[0].x + 3.0f * t[0].x;
  for (int b = 0; b < BINS; b++)
    sum += (1.0f + b) * f[b].x + 0.5f * f[b].y;
  sum += 0.25f * m[0].x + 7.0f * m[0].y + 0.5f * m[0].z - m[0].w;
  cudaFree(force);
  cudaFree(moments);
  cudaFree(per_block);
  cudaFree(total);
  return sum;
}

int main() {
  require_device();
  std::vector<float> x(N), tx(N);
  for (int i = 0; i < N; i++) {
    x[i] = 0.3f * sinf(0.21f * i);
    tx[i] = cosf(0.13f * i);
  }
  float *d_x = to_device(x), *d_dx = device_alloc<float>(N), *d_tx = to_device(tx);
  check_cuda(cudaMemset(d_dx, 0, N * sizeof(float)), "memset");
  __enzyme_autodiff((void *)loss, enzyme_dup, d_x, d_dx, enzyme_const, N);
  check_kernel("gradient of loss");
  double tangent = __enzyme_fwddiff((void *)loss, enzyme_dup, d_x, d_tx, enzyme_const, N);
  check_kernel("tangent of loss");
  std::vector<float> dx(N);
  from_device(dx, d_dx);
  double t_want = 0;
  for (int i = 0; i < N; i++) {
    double v = x[i];
    double want = (1.0 + i % BINS) + 0.5 * 2.0 * v + 0.25 + 0.5 * 2.0 - 2.0 * v + 3.0 +
                  (i < THREADS ? 2.0 : 0.0);
    check_close(dx[i], want, 1e-5, "dloss/dx[%d]", i);
    t_want += want * tx[i];
  }
  check_close(tangent, t_want, 1e-4, "tangent");
  device_free_all();
  return check_exit();
}
