// Regression: a kernel with more read-only float pointers than get every
// activity pattern, launched with some of them Const and some dup. a and b,
// read reversed, are shared between threads (2 > KINASE_ALL_PATTERNS_UP_TO:
// only the all-dup and all-Const reverse kernels exist for them); c and d
// are each thread's own (always dup, no patterns of their own). The runtime
// takes the kernel with a, b, c and d dup, zeroed scratch shadows for the
// Const b and d (it stopped with "no derivative kernel for activity" once).
// Forward mode has one kernel, all-dup, for any activity. Against analytic
// gradients.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: grep -c "\.entry __kinase_krev_" %t.ptx | grep -x 2
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK-DAG: .entry __kinase_krev_ndddd__Z5blendPfPKfS1_S1_S1_i(
// CHECK-DAG: .entry __kinase_krev_nccdd__Z5blendPfPKfS1_S1_S1_i(
// CHECK-DAG: .entry __kinase_kfwd_ddddd__Z5blendPfPKfS1_S1_S1_i(

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 3000 };

__global__ void blend(float *y, const float *a, const float *b, const float *c, const float *d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a[n - 1 - i] * b[n - 1 - i] + sinf(c[i]) * d[i];
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
    check_close(da[i], seed[N - 1 - i] * b[i], 1e-5, "dy/da[%d]", i);
    check_close(dc[i], seed[i] * cos((double)c[i]) * d[i], 1e-5, "dy/dc[%d]", i);
  }
  float *d_ta = to_device(ta), *d_tc = to_device(tc), *d_ty = device_alloc<float>(N);
  __enzyme_fwddiff((void *)blend_all, enzyme_dup, d_y, d_ty, enzyme_dup, d_a, d_ta, enzyme_const, d_b,
                   enzyme_dup, d_c, d_tc, enzyme_const, d_d, N);
  check_kernel("tangent of blend_all");
  std::vector<float> ty(N);
  from_device(ty, d_ty);
  for (int i = 0; i < N; i++)
    check_close(ty[i], ta[N - 1 - i] * b[N - 1 - i] + cos((double)c[i]) * d[i] * tc[i], 1e-5,
                "tangent y[%d]", i);
  device_free_all();
  return check_exit();
}
