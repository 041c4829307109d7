// Cooperative groups shuffles of structs, as welford-style and vector
// reductions write them: thread_block_tile::shfl_down of a float2 and
// shfl_xor of a struct {float sum, sumsq; int n}. cooperative groups copy
// such a value into ints and shuffle those, about seven calls deep; each
// float then moves as `bitcast float to i32`, an integer shuffle, and a
// bitcast back. Through the integers the derivative was lost: launched
// from host code the output pointer moved "no floats" (Const in the
// reverse kernel: a zero gradient); differentiated inside a kernel the
// helpers stayed calls whose reverse moved no adjoint between lanes (the
// adjoint stayed with the lane that read). Now the calls reaching an
// integer shuffle are inlined and the shuffle of a float's bits is the
// float's own shuffle (a double's halves are an error:
// test/errors/warp-shuffle-bits.cu).
//   loss1 = sum_warps s.x + 2 s.y,  s = sum_lanes (x^2, sin x)
//     d/dx = 2x + 2 cos x
//   loss2 = sum_warps var(x over the warp's 32 lanes)
//     d/dx_i = 2 (x_i - mean) / 32
//   E(q) = sum_lanes q.x^2 + 3 q.x q.y, per warp, inside a kernel
//     dE/dq = (2 q.x + 3 q.y, 3 q.x)
// Forward mode of loss1 along a direction against its gradient.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --input-file=%t.O0.ptx
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The float2 output moves floats: its shadow is used, 'd' (it was Const,
// 'c'); the shuffles' adjoints go back up the warp.
// CHECK-NOT: __kinase_kwhy__Z11float2_warp
// CHECK-LABEL: .entry __kinase_krev_dd__Z11float2_warp
// The transpose sends each lane's adjoint of what it received (it sent
// the constant -0.0 while the adjoint stayed behind the integer bits):
// CHECK: shfl.sync.down.b32 {{.*}}|%p
// CHECK-NEXT: selp.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, 0f00000000
// CHECK: shfl.sync.up
// CHECK-LABEL: .entry __kinase_krev_dd__Z13warp_variance
// CHECK: shfl.sync.bfly

#include <cooperative_groups.h>
#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

namespace cg = cooperative_groups;

enum { N = 2048, THREADS = 128, WARPS = N / 32 };

__global__ void float2_warp(const float *x, float2 *out) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float2 v = make_float2(x[i] * x[i], sinf(x[i]));
  for (int offset = 16; offset > 0; offset >>= 1) {
    float2 w = tile.shfl_down(v, offset);
    v.x += w.x;
    v.y += w.y;
  }
  if (tile.thread_rank() == 0)
    out[i / 32] = v;
}

struct Stats {
  float sum, sumsq;
  int n;
};

// A butterfly: every lane ends with the warp's totals.
__global__ void warp_variance(const float *x, float *var) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  Stats s{x[i], x[i] * x[i], 1};
  for (int mask = 16; mask > 0; mask >>= 1) {
    Stats o = tile.shfl_xor(s, mask);
    s.sum += o.sum;
    s.sumsq += o.sumsq;
    s.n += o.n;
  }
  if (tile.thread_rank() == 0) {
    float mean = s.sum / s.n;
    atomicAdd(var, s.sumsq / s.n - mean * mean);
  }
}

__device__ float warp_energy(const float2 *p) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  float2 q = p[tile.thread_rank()];
  float2 v = make_float2(q.x * q.x, q.x * q.y);
  for (int offset = 16; offset > 0; offset >>= 1) {
    float2 w = tile.shfl_down(v, offset);
    v.x += w.x;
    v.y += w.y;
  }
  return tile.thread_rank() == 0 ? v.x + 3.0f * v.y : 0.0f;
}

// Each lane asks for the gradient; only lane 0's result depends on p.
__global__ void energy_gradient(const float2 *p, float2 *dp) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  __enzyme_autodiff((void *)warp_energy, enzyme_dup, p + 32 * warp, dp + 32 * warp);
}

struct DeviceFloats {
  float *p = nullptr;
  explicit DeviceFloats(int n) { cudaMalloc(&p, n * sizeof(float)); }
  ~DeviceFloats() { cudaFree(p); }
};

float loss1(const float *x, int n) {
  float2 *out;
  cudaMalloc(&out, (n / 32) * sizeof(float2));
  float2_warp<<<n / THREADS, THREADS>>>(x, out);
  std::vector<float2> h(n / 32);
  cudaMemcpy(h.data(), out, h.size() * sizeof(float2), cudaMemcpyDeviceToHost);
  cudaFree(out);
  float s = 0;
  for (const float2 &v : h)
    s += v.x + 2.0f * v.y;
  return s;
}

float loss2(const float *x, int n) {
  DeviceFloats var(1);
  cudaMemset(var.p, 0, sizeof(float));
  warp_variance<<<n / THREADS, THREADS>>>(x, var.p);
  float h;
  cudaMemcpy(&h, var.p, sizeof h, cudaMemcpyDeviceToHost);
  return h;
}

int main() {
  require_device();
  std::vector<float> x(N), zero(N, 0.f), tx(N);
  for (int i = 0; i < N; i++) {
    x[i] = sinf(0.37f * i) + 0.2f * cosf(1.3f * i);
    tx[i] = cosf(0.11f * i);
  }
  std::vector<double> grad1(N);
  double t_want = 0;
  for (int i = 0; i < N; i++) {
    grad1[i] = 2.0 * x[i] + 2.0 * cos(x[i]);
    t_want += grad1[i] * tx[i];
  }
  float *d_x = to_device(x), *d_dx = to_device(zero), *d_tx = to_device(tx);
  __enzyme_autodiff((void *)loss1, enzyme_dup, d_x, d_dx, enzyme_const, N);
  check_kernel("gradient of loss1");
  check_close(__enzyme_fwddiff((void *)loss1, enzyme_dup, d_x, d_tx, enzyme_const, N), t_want, 1e-3,
              "tangent of loss1");
  std::vector<float> dx(N);
  from_device(dx, d_dx);
  for (int i = 0; i < N; i++)
    check_close(dx[i], grad1[i], 1e-4, "dloss1/dx[%d]", i);

  float *d_dx2 = to_device(zero);
  __enzyme_autodiff((void *)loss2, enzyme_dup, d_x, d_dx2, enzyme_const, N);
  check_kernel("gradient of loss2");
  from_device(dx, d_dx2);
  for (int w = 0; w < WARPS; w++) {
    double mean = 0;
    for (int l = 0; l < 32; l++)
      mean += x[32 * w + l] / 32.0;
    for (int l = 0; l < 32; l++) {
      int i = 32 * w + l;
      check_within(dx[i], 2.0 * (x[i] - mean) / 32.0, 1e-5, "dloss2/dx[%d]", i);
    }
  }

  std::vector<float2> p(N), dp(N, make_float2(0.f, 0.f));
  for (int i = 0; i < N; i++)
    p[i] = make_float2(x[i], cosf(0.23f * i));
  float2 *d_p = to_device(p), *d_dp = to_device(dp);
  energy_gradient<<<N / THREADS, THREADS>>>(d_p, d_dp);
  check_kernel("energy_gradient");
  from_device(dp, d_dp);
  for (int i = 0; i < N; i++) {
    check_close(dp[i].x, 2.0 * p[i].x + 3.0 * p[i].y, 1e-4, "dE/dq[%d].x", i);
    check_close(dp[i].y, 3.0 * p[i].x, 1e-4, "dE/dq[%d].y", i);
  }
  device_free_all();
  return check_exit();
}
