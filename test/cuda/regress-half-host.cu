// Regression (issue 10): __half and __nv_bfloat16 memory on the host path.
// Kernels whose pointer parameters are __half * or __nv_bfloat16 * get
// derivative kernels (their kernel info marks those pointers F16 / BF16), and
// the host code around them differentiates:
//  - half_loss: host floats -> __half on the host (__float2half, integer
//    code there: Kinase reads it as fptrunc) -> device -> a device-to-device
//    copy (its element type known only from the kernel, at run time) ->
//    y = x^2 in half -> host -> sum of __half2float; gradient 2x, and the
//    same by forward mode;
//  - bf16_scale: __nv_bfloat16 weights on the device times float data,
//    y = w x: dw = x in bfloat16 (atomics or plain adds into bfloat16
//    shadow memory), and the tangent along w.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S -emit-llvm %s -o %t.dev.ll
// RUN: FileCheck %s --check-prefix=DEV --input-file=%t.dev.ll
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// Both kernels have derivative kernels, none a reason why not:
// PTX-NOT: __kinase_kwhy_
// PTX-DAG: .entry __kinase_krev_{{[a-z]+}}__Z11square_half{{.*}}(
// PTX-DAG: .entry __kinase_kfwd_{{[a-z]+}}__Z11square_half{{.*}}(
// PTX-DAG: .entry __kinase_krev_{{[a-z]+}}__Z10scale_bf16{{.*}}(
// PTX-NOT: __kinase_kwhy_
//
// Kernel info of square_half(y, x, n): y 0x1050008 (8 bytes, pointer,
// written, F16), x 0x1830008 (pointer, read, owned, F16), n 4 bytes.
// DEV: @__kinase_kinfo__Z11square_half{{.*}} = {{.*}} [i32 {{[0-9]+}}, i32 3, i32 0, i32 17104904, i32 25362440, i32 4]
// scale_bf16(y, w, x, n): y written BF16 (0x2050008), w read owned BF16
// (0x2830008), x read owned F32 (0xa30008).
// DEV: @__kinase_kinfo__Z10scale_bf16{{.*}} = {{.*}} [i32 {{[0-9]+}}, i32 4, i32 0, i32 33882120, i32 42139656, i32 10682376, i32 4]
// The adjoints go into half and bfloat16 memory as half and bfloat16.
// DEV-LABEL: define {{.*}}@__kinase_krev_{{[a-z]+}}__Z11square_half
// DEV:         atomicrmw fadd ptr %{{[0-9]+}}, half
// DEV-LABEL: define {{.*}}@__kinase_krev_{{[a-z]+}}__Z10scale_bf16
// DEV:         atomicrmw fadd ptr %{{[0-9]+}}, bfloat
//
// Host: __float2half and __half2float are conversions, and the copies of
// __half memory the host reads reverse with half elements (2); the
// device-to-device one leaves the type to the runtime (0).
// CHECK-LABEL: define {{.*}}half_loss
// CHECK-DAG:   call void @__kinase_copy_reverse({{.*}}, i32 2, ptr
// CHECK-DAG:   call void @__kinase_copy_reverse({{.*}}, i32 0, ptr
// CHECK-DAG:   fpext half
// CHECK-NOT:   __enzyme_autodiff

#include <kinase.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdlib.h>
#include "cuda_check.h"

enum { N = 3000, THREADS = 128 };

extern float __enzyme_fwddiff_float(void *, ...);

__global__ void square_half(__half *y, const __half *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * x[i];
}

__global__ void scale_bf16(__nv_bfloat16 *y, const __nv_bfloat16 *w, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = w[i] * __float2bfloat16(x[i]);
}

float half_loss(const float *x, int n) {
  size_t bytes = n * sizeof(__half);
  __half *h = (__half *)malloc(bytes);
  for (int i = 0; i < n; i++)
    h[i] = __float2half(x[i]);
  __half *a, *b, *y;
  cudaMalloc(&a, bytes);
  cudaMalloc(&b, bytes);
  cudaMalloc(&y, bytes);
  cudaMemcpy(a, h, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
  square_half<<<blocks_for(n, THREADS), THREADS>>>(y, b, n);
  cudaMemcpy(h, y, bytes, cudaMemcpyDeviceToHost);
  float s = 0;
  for (int i = 0; i < n; i++)
    s += __half2float(h[i]);
  cudaFree(a);
  cudaFree(b);
  cudaFree(y);
  free(h);
  return s;
}

void bf16_scale(__nv_bfloat16 *y, const __nv_bfloat16 *w, const float *x, int n) {
  scale_bf16<<<blocks_for(n, THREADS), THREADS>>>(y, w, x, n);
}

static float as_half(float v) { return __half2float(__float2half(v)); }
static float as_bfloat16(float v) { return __bfloat162float(__float2bfloat16(v)); }

int main(void) {
  require_device();
  static float x[N], g[N], t[N];
  double want_tangent = 0;
  for (int i = 0; i < N; i++) {
    x[i] = (float)(0.25 + 1.5 * fmod(0.618034 * i, 1.0));
    t[i] = 1;
    want_tangent += 2 * as_half(x[i]);
  }
  __enzyme_autodiff((void *)half_loss, enzyme_dup, x, g, enzyme_const, N);
  check_kernel("half_loss reverse");
  for (int i = 0; i < N; i++)
    check_close(g[i], 2 * as_half(x[i]), 1e-2, "half_loss: d/dx[%d]", i);
  float tangent = __enzyme_fwddiff_float((void *)half_loss, enzyme_dup, x, t, enzyme_const, N);
  check_kernel("half_loss forward");
  check_close(tangent, want_tangent, 1e-2, "half_loss: tangent along ones");

  // bfloat16 weights: dy = 1, dw = x; the tangent along w = 1 is x.
  static __nv_bfloat16 w[N], ones[N], zeros[N];
  for (int i = 0; i < N; i++) {
    w[i] = __float2bfloat16((float)(0.5 + fmod(0.377 * i, 1.0)));
    ones[i] = __float2bfloat16(1.0f);
    zeros[i] = __float2bfloat16(0.0f);
  }
  __nv_bfloat16 *d_w = to_device(w), *d_dw = to_device(zeros), *d_y = device_alloc(w);
  __nv_bfloat16 *d_dy = to_device(ones), *d_tw = to_device(ones), *d_ty = device_alloc(w);
  float *d_x = to_device(x);
  __enzyme_autodiff((void *)bf16_scale, enzyme_dupnoneed, d_y, d_dy, enzyme_dup, d_w, d_dw, enzyme_const,
                    d_x, N);
  check_kernel("bf16_scale reverse");
  static __nv_bfloat16 dw[N], ty[N];
  from_device(dw, d_dw);
  __enzyme_fwddiff((void *)bf16_scale, enzyme_dup, d_y, d_ty, enzyme_dup, d_w, d_tw, enzyme_const, d_x, N);
  check_kernel("bf16_scale forward");
  from_device(ty, d_ty);
  device_free_all();
  for (int i = 0; i < N; i++) {
    check_close(__bfloat162float(dw[i]), as_bfloat16(x[i]), 2e-2, "bf16_scale: d/dw[%d]", i);
    check_close(__bfloat162float(ty[i]), as_bfloat16(x[i]), 2e-2, "bf16_scale: tangent[%d]", i);
  }
  return check_exit();
}
