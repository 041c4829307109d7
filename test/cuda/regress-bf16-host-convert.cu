// Regression: host code converting a float to __nv_bfloat16 inside the
// differentiated function (__float2bfloat16, then a launch taking the
// bfloat16 by value) did not link: Kinase reads the conversion as an
// fptrunc to bfloat, which x86-64 lowers to a call of __truncsfbf2, and
// GCC 12's libgcc has none ("undefined reference to `__truncsfbf2'"). The
// runtime provides it (runtime/bfloat16.c, test/runtime/truncsfbf2.c).
//   out_i = bf16(s) x_i:  d s = sum_i w_i x_i (summed per warp in float),
// reverse and forward mode.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
//
// CHECK-LABEL: define internal {{.*}} @__kinase_aug__Z9run_scalePKffPfi(
// CHECK: fptrunc float %{{.*}} to bfloat
// CHECK-LABEL: define internal void @__kinase_fwd__Z9run_scalePKffPfi(
// CHECK: fptrunc float %{{.*}} to bfloat

#include <kinase.h>
#include <cuda_bf16.h>
#include <vector>
#include "cuda_check.h"

enum { N = 256 };

template <typename T> T __enzyme_autodiff(void *, ...);

__global__ void scale(const float *x, __nv_bfloat16 s, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = __bfloat162float(s) * x[i];
}

void run_scale(const float *x, float s, float *out, int n) {
  scale<<<(n + 127) / 128, 128>>>(x, __float2bfloat16(s), out, n);
}

int main() {
  require_device();
  std::vector<float> x(N), w(N), ones(N, 1.0f), got(N);
  double want = 0;
  for (int i = 0; i < N; i++) {
    x[i] = 0.5f + 0.25f * sinf(0.1f * i);
    w[i] = (1.0f + 0.01f * i) / N;
    want += (double)w[i] * x[i];
  }
  float *d_x = to_device(x), *d_w = to_device(w), *d_out = device_alloc<float>(N);
  float ds = __enzyme_autodiff<float>((void *)run_scale, enzyme_const, d_x, enzyme_out, 0.75f,
                                      enzyme_dupnoneed, d_out, d_w, enzyme_const, (int)N);
  check_kernel("reverse");
  check_close(ds, want, 1e-2, "d s (bfloat16 parameter)");
  float *d_ones = to_device(ones), *d_tout = device_alloc<float>(N);
  __enzyme_fwddiff((void *)run_scale, enzyme_dup, d_x, d_ones, enzyme_dup, 0.75f, 1.0f,
                   enzyme_dup, d_out, d_tout, enzyme_const, (int)N);
  check_kernel("forward");
  from_device(got, d_tout);
  for (int i = 0; i < N; i++)
    check_close(got[i], x[i] + 0.75, 1e-6, "tangent[%d]", i);
  device_free_all();
  return check_exit();
}
