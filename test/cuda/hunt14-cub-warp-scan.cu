// cub::WarpScan inclusive prefix sums of floats and doubles in kernels
// launched from a differentiated host function. cub writes the scan's step
// as assembly: an up shuffle, predicated on the source lane being in range,
// and an add (of doubles: the two 32-bit halves shuffled). That assembly
// was in a header function inlined into the kernel's copy, where the check
// for unknown assembly never looked: the derivative kernels passed over it,
// a silently wrong gradient. Now the step is a row of lib/rules/asm.def
// (the up shuffle that rules/warp.def transposes, and the add where valid),
// and unknown assembly that may move a derivative in inlined code is an
// error (WarpScan's ExclusiveSum, which moves the value's words through
// memory: the kernel's reason, test/errors/warp-shuffle-bits.cu).
//   s_i = sum_{j <= i, same warp} x_j
//   loss = sum_i w_i s_i (floats) + sum_i w_i t_i (doubles, t the same scan)
//   d/dx_j = sum_{i >= j, same warp} w_i
// Gradients against these; forward mode along a direction against them.
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
// CHECK-NOT: __kinase_kwhy__Z10scan_float
// CHECK-NOT: __kinase_kwhy__Z11scan_double
// The scan's adjoints go back down the warp.
// CHECK-LABEL: .entry __kinase_krev_dn__Z10scan_float
// CHECK: shfl.sync.down
// CHECK-LABEL: .entry __kinase_krev_dn__Z11scan_double
// CHECK: shfl.sync.down

#include <cub/cub.cuh>
#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 1000, THREADS = 128, WARPS_PER_BLOCK = THREADS / 32 };

__global__ void scan_float(const float *x, float *s, int n) {
  using Scan = cub::WarpScan<float>;
  __shared__ typename Scan::TempStorage storage[WARPS_PER_BLOCK];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f, sum;
  Scan(storage[threadIdx.x / 32]).InclusiveSum(v, sum);
  if (i < n)
    s[i] = sum;
}

__global__ void scan_double(const float *x, double *t, int n) {
  using Scan = cub::WarpScan<double>;
  __shared__ typename Scan::TempStorage storage[WARPS_PER_BLOCK];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double v = i < n ? (double)x[i] : 0.0, sum;
  Scan(storage[threadIdx.x / 32]).InclusiveSum(v, sum);
  if (i < n)
    t[i] = sum;
}

double weighted_scans(const float *x, const std::vector<double> &w, int n) {
  float *s;
  double *t;
  cudaMalloc(&s, n * sizeof(float));
  cudaMalloc(&t, n * sizeof(double));
  int blocks = (n + THREADS - 1) / THREADS;
  scan_float<<<blocks, THREADS>>>(x, s, n);
  scan_double<<<blocks, THREADS>>>(x, t, n);
  std::vector<float> hs(n);
  std::vector<double> ht(n);
  cudaMemcpy(hs.data(), s, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(ht.data(), t, n * sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(s);
  cudaFree(t);
  double loss = 0;
  for (int i = 0; i < n; i++)
    loss += w[i] * (hs[i] + ht[i]);
  return loss;
}

int main() {
  require_device();
  std::vector<float> x(N), zero(N, 0.f), dir(N);
  std::vector<double> w(N);
  for (int i = 0; i < N; i++) {
    x[i] = sinf(0.3f * i);
    dir[i] = cosf(0.19f * i);
    w[i] = 1.0 + 0.5 * cos(0.07 * i);
  }
  // d/dx_j: both scans, each the sum of the weights after j in j's warp.
  std::vector<double> want(N);
  for (int j = 0; j < N; j++) {
    double tail = 0;
    for (int i = j; i < N && i / 32 == j / 32; i++)
      tail += w[i];
    want[j] = 2.0 * tail;
  }
  float *d_x = to_device(x), *d_dx = to_device(zero), *d_dir = to_device(dir);
  __enzyme_autodiff((void *)weighted_scans, enzyme_dup, d_x, d_dx, enzyme_const, &w, enzyme_const, N);
  check_kernel("gradient of weighted_scans");
  double tangent = __enzyme_fwddiff((void *)weighted_scans, enzyme_dup, d_x, d_dir, enzyme_const, &w,
                                    enzyme_const, N);
  check_kernel("tangent of weighted_scans");
  std::vector<float> dx(N);
  from_device(dx, d_dx);
  double t_want = 0;
  for (int j = 0; j < N; j++) {
    check_close(dx[j], want[j], 1e-4, "d/dx[%d]", j);
    t_want += want[j] * dir[j];
  }
  check_close(tangent, t_want, 1e-4, "tangent");
  device_free_all();
  return check_exit();
}
