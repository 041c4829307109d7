// CUDA's half headers write arithmetic as inline assembly; Kinase reads the
// instructions of lib/rules/asm.def (add.f16, cvt.rn.f16.f32, ...) and
// refuses the others with an error naming the assembly, never a derivative
// that skips it: here a square written by hand (conversions between halves
// and integers, through which no derivative flows, need no row:
// test/cuda/nvvm-half-to-int.cu).
// __halves2half2 packs two 16-bit values whose type only the values around
// it tell: from memory into memory, nothing does. Bits of a pair in integer arithmetic (a sign flip by xor)
// carry no derivative either.
// REQUIRES: cuda
// RUN: not %kinase-cc -g -O0 --cuda-device-only -S %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 --cuda-device-only -S %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>
#include <cuda_fp16.h>

__device__ float to_integer(const float *p) {
  float y;
  asm("mul.f32 %0, %1, %1;" : "=f"(y) : "f"(p[0]));
  return y;
}
__device__ void pack(const __half *w, __half2 *out) { *out = __halves2half2(w[0], w[1]); }
__device__ float flip(const float *p) {
  __half2 a = __floats2half2_rn(p[0], p[1]);
  unsigned bits = *reinterpret_cast<unsigned *>(&a) ^ 0x80008000u;
  return __low2float(*reinterpret_cast<__half2 *>(&bits));
}

__global__ void gradient(const float *x, float *dx) {
  // CHECK-DAG: error: kinase: cannot differentiate '{{.*}}to_integer{{.*}}': it contains inline assembly ('mul.f32 $0,$1,$1')
  __enzyme_autodiff((void *)to_integer, enzyme_dup, x, dx);
}

__global__ void pack_gradient(const __half *w, __half *dw, __half2 *out, __half2 *dout) {
  // CHECK-DAG: half-asm-unsupported.cu:21:{{[0-9]+}}: error: kinase: cannot differentiate '{{.*}}pack{{.*}}': it packs two 16-bit values into a pair (__halves2half2 or __halves2bfloat162) that are neither computed as __half or __nv_bfloat16 here nor used as a pair of one of them
  __enzyme_autodiff((void *)pack, enzyme_dup, w, dw, enzyme_dup, out, dout);
}

__global__ void flip_gradient(const float *x, float *dx) {
  // CHECK-DAG: half-asm-unsupported.cu:24:{{[0-9]+}}: error: kinase: cannot differentiate '{{.*}}flip{{.*}}': it computes with the bits of a __half2 or __nv_bfloat162 as an integer (other than reading or writing .x and .y), through which no derivative flows
  __enzyme_autodiff((void *)flip, enzyme_dup, x, dx);
}
// CHECK: 3 errors generated
