// Shuffles whose floats travel as integer bits, differentiated inside
// kernels. Cooperative groups shuffle a struct by copying it into ints, cub
// a value word by word: a float's bits are made the float's shuffle, and a
// double's two halves shuffled alike the double's (test/cuda/
// hunt14-cg-struct-shuffle.cu, test/cuda/hunt17-cub-word-shuffles.cu). A
// half shuffled alone, or the halves shuffled apart, would lose the
// derivative: an error at the shuffle, never a zero gradient. A __half2
// shuffled from memory into memory says nowhere whether it holds halves or
// bfloat16s: an error too.
// REQUIRES: cuda
// RUN: not %kinase-cc -g -O0 --cuda-device-only -S %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 --cuda-device-only -S %s -o /dev/null 2>&1 | FileCheck %s
#include <cuda_fp16.h>
#include <kinase.h>

__device__ double low_half_moved(const double *p) {
  double v = p[threadIdx.x % 32];
  int lo = __shfl_down_sync(0xffffffffu, __double2loint(v), 1);
  return __hiloint2double(__double2hiint(v), lo);
}

__device__ double halves_apart(const double *p) {
  double v = p[threadIdx.x % 32];
  int lo = __shfl_down_sync(0xffffffffu, __double2loint(v), 1);
  int hi = __shfl_down_sync(0xffffffffu, __double2hiint(v), 2);
  return __hiloint2double(hi, lo);
}

__device__ void move_pair(const __half2 *a, __half2 *b) { *b = __shfl_down_sync(0xffffffffu, *a, 1); }

__global__ void gradient(const double *p, double *dp) {
  // CHECK-DAG: warp-shuffle-bits.cu:18:{{[0-9]+}}: error: kinase: cannot differentiate '{{.*}}low_half_moved{{.*}}': it shuffles one 32-bit half of a double's bits without the other half alike, through which its derivative would be lost
  __enzyme_autodiff((void *)low_half_moved, enzyme_dup, p, dp);
  // CHECK-DAG: warp-shuffle-bits.cu:24:{{[0-9]+}}: error: kinase: cannot differentiate '{{.*}}halves_apart{{.*}}': it shuffles one 32-bit half of a double's bits without the other half alike
  __enzyme_autodiff((void *)halves_apart, enzyme_dup, p, dp);
}

__global__ void pair_gradient(const __half2 *a, __half2 *da, __half2 *b, __half2 *db) {
  // CHECK-DAG: warp-shuffle-bits.cu:29:{{[0-9]+}}: error: kinase: cannot differentiate '{{.*}}move_pair{{.*}}': it shuffles 32 bits from memory into memory whose type nothing here tells (__shfl_sync on a __half2 or __nv_bfloat162 neither computed nor used as one)
  __enzyme_autodiff((void *)move_pair, enzyme_dup, a, da, enzyme_dup, b, db);
}
// CHECK: 3 errors generated
