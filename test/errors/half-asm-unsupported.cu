// CUDA's half headers write arithmetic as inline assembly; Kinase reads the
// instructions of lib/rules/asm.def (add.f16, cvt.rn.f16.f32, ...) and
// refuses the others with an error naming the assembly, never a derivative
// that skips it: here __float2half_rz (rounding towards zero) and hexp (an
// approximation of several instructions with special cases).
// REQUIRES: cuda
// RUN: not %kinase-cc -g -O0 --cuda-device-only -S %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 --cuda-device-only -S %s -o /dev/null 2>&1 | FileCheck %s
#include <kinase.h>
#include <cuda_fp16.h>

__device__ float toward_zero(const float *p) { return __half2float(__float2half_rz(p[0])); }
__device__ float exponential(const float *p) { return __half2float(hexp(__float2half(p[0]))); }

__global__ void gradient(const float *x, float *dx) {
  // CHECK-DAG: error: kinase: cannot differentiate '{{.*}}toward_zero{{.*}}': it contains inline assembly ('cvt.rz.f16.f32 $0,$1'), which Kinase has no derivative rule for
  __enzyme_autodiff((void *)toward_zero, enzyme_dup, x, dx);
  // CHECK-DAG: error: kinase: cannot differentiate '{{.*}}exponential{{.*}}': it contains inline assembly ('{{.*}}ex2.approx.ftz.f32{{.*}}'), which Kinase has no derivative rule for
  __enzyme_fwddiff((void *)exponential, enzyme_dup, x, dx);
}
// CHECK: 2 errors generated
