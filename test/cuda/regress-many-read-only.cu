// Regression: a kernel with more read-only float pointers than get every
// activity pattern (4 > 3: only all-dup and all-Const reverse kernels exist),
// launched with some of them Const and some dup: the runtime takes the
// all-dup kernel with zeroed scratch shadows for the Const ones (it stopped
// with "no derivative kernel for activity" before). Forward mode has one
// kernel, all-dup, for any activity. Against analytic gradients.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK-DAG: .entry __kinase_krev_ddddd__Z5blendPfPKfS1_S1_S1_i(
// CHECK-DAG: .entry __kinase_krev_dcccc__Z5blendPfPKfS1_S1_S1_i(
// CHECK-DAG: .entry __kinase_kfwd_ddddd__Z5blendPfPKfS1_S1_S1_i(
// CHECK-NOT: __kinase_krev_dcdcd__Z5blend

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 3000 };

__global__ void blend(float *y, const float *a, const float *b, const float *c, const float *d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a[i] * b[i] + sinf(c[i]) * d[i];
}

void blend_all(float *y, const float *a, const float *b, const float *c, const float *d, int n) {
  blend<<<(n + 127) / 128, 128>>>(y, a, b, c, d, n);
}

int main(void) {
  require_device();
  std::vector<float> a(N), b(N), c(N), d(N), seed(N), ta(N), tc(N);
  for (int i = 0; i < N; i++) {
    a[i] = 0.5f + 0.001f * i;
    b[i] = cosf(0.01f * i);
    c[i] = 0.002f * i - 1.f;
    d[i] = 1.5f - 0.0003f * i;
    seed[i] = 1.f + 0.1f * (i % 5);
    ta[i] = 0.3f;
    tc[i] = -0.7f;
  }
  float *d_a = to_device(a), *d_b = to_device(b), *d_c = to_device(c), *d_d = to_device(d);
  float *d_y = device_alloc<float>(N), *d_seed = to_device(seed);
  float *d_da = device_alloc<float>(N), *d_dc = device_alloc<float>(N);
  check_cuda(cudaMemset(d_da, 0, N * sizeof(float)), "memset");
  check_cuda(cudaMemset(d_dc, 0, N * sizeof(float)), "memset");
  /* a and c dup, b and d Const: a mixed pattern of four read-only pointers. */
  __enzyme_autodiff((void *)blend_all, enzyme_dupnoneed, d_y, d_seed, enzyme_dup, d_a, d_da,
                    enzyme_const, d_b, enzyme_dup, d_c, d_dc, enzyme_const, d_d, N);
  check_kernel("gradient of blend_all");
  std::vector<float> da(N), dc(N);
  from_device(da, d_da);
  from_device(dc, d_dc);
  for (int i = 0; i < N; i++) {
    check_close(da[i], seed[i] * b[i], 1e-5, "dy/da[%d]", i);
    check_close(dc[i], seed[i] * cos((double)c[i]) * d[i], 1e-5, "dy/dc[%d]", i);
  }
  float *d_ta = to_device(ta), *d_tc = to_device(tc), *d_ty = device_alloc<float>(N);
  __enzyme_fwddiff((void *)blend_all, enzyme_dup, d_y, d_ty, enzyme_dup, d_a, d_ta, enzyme_const, d_b,
                   enzyme_dup, d_c, d_tc, enzyme_const, d_d, N);
  check_kernel("tangent of blend_all");
  std::vector<float> ty(N);
  from_device(ty, d_ty);
  for (int i = 0; i < N; i++)
    check_close(ty[i], ta[i] * b[i] + cos((double)c[i]) * d[i] * tc[i], 1e-5, "tangent y[%d]", i);
  device_free_all();
  return check_exit();
}
