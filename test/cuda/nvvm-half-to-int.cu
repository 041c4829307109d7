// Conversions between __half or __nv_bfloat16 and integers (__half2int_rz,
// __half2ushort_rn, __bfloat162int_rz, __bfloat162char_rz, __int2half_rn)
// in a differentiated __device__ function: the headers' assembly converts
// to or from an integer, through which no derivative flows, so it needs no
// rule (it was a located error). With h = (2, 3) and x in [1.25, 1.75):
//   f(x) = t[k] x^2 + u x + half(k + b) x + c,  k = 2, u = 3, b = 1,
//   c = char(2x) a constant,  so f'(x) = 2 t[2] x + 3 + 3.
// Reverse and forward mode inside a kernel, -O0 and -O2.
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
// The conversions stay as the headers wrote them, in the derivatives too.
// CHECK-LABEL: .entry _Z9gradientsPKfPK6__halfS0_PfS4_(
// CHECK-DAG: cvt.rzi.s32.f16
// CHECK-DAG: cvt.rni.u16.f16
// CHECK-DAG: cvt.rzi.s32.bf16
// CHECK-DAG: cvt.rn.f16.s32

#include <kinase.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include "cuda_check.h"

enum { N = 256 };

extern __device__ float __enzyme_fwddiff_f(void *, ...);

__device__ float quantized(const float *table, const __half *h, float x) {
  int k = __half2int_rz(h[0]);
  unsigned short u = __half2ushort_rn(h[1]);
  int b = __bfloat162int_rz(__float2bfloat16(x));
  signed char c = __bfloat162char_rz(__float2bfloat16(2.0f * x));
  __half back = __int2half_rn(k + b);
  return table[k] * x * x + (float)u * x + __half2float(back) * x + (float)c;
}

__global__ void gradients(const float *table, const __half *h, const float *x, float *dx, float *tx) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N)
    return;
  dx[i] = __enzyme_autodiff((void *)quantized, enzyme_const, table, enzyme_const, h, x[i]);
  tx[i] = __enzyme_fwddiff_f((void *)quantized, enzyme_const, table, enzyme_const, h, enzyme_dup, x[i],
                             1.0f);
}

int main(void) {
  require_device();
  static float table[4] = {0.5f, 1.0f, 1.5f, 2.0f}, x[N], dx[N], tx[N];
  static __half h[2];
  h[0] = __float2half(2.0f);
  h[1] = __float2half(3.0f);
  for (int i = 0; i < N; i++)
    x[i] = 1.25f + 0.5f * (float)i / N;
  float *d_table = to_device(table), *d_x = to_device(x), *d_dx = device_alloc<float>(N);
  float *d_tx = device_alloc<float>(N);
  __half *d_h = to_device(h);
  gradients<<<(N + 127) / 128, 128>>>(d_table, d_h, d_x, d_dx, d_tx);
  check_kernel("gradients");
  from_device(dx, d_dx);
  from_device(tx, d_tx);
  for (int i = 0; i < N; i++) {
    double want = 2.0 * table[2] * x[i] + 3 + 3;
    check_close(dx[i], want, 1e-6, "reverse f'(%g)", x[i]);
    check_close(tx[i], want, 1e-6, "forward f'(%g)", x[i]);
  }
  device_free_all();
  return check_exit();
}
