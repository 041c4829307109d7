// Shuffles whose floats travel as integer bits, differentiated inside
// kernels. Cooperative groups shuffle a struct by copying it into ints:
// a float's bits are made the float's shuffle (test/cuda/
// hunt14-cg-struct-shuffle.cu), but a double moves as two 32-bit halves,
// through which its derivative would be lost: an error at the shuffle,
// never a zero gradient. A __half2 shuffled from memory into memory says
// nowhere whether it holds halves or bfloat16s: an error too, as is cub's
// WarpScan::ExclusiveSum, whose ShuffleUp moves a float's words from
// memory into memory (its inclusive steps are rows:
// test/cuda/hunt14-cub-warp-scan.cu).
// REQUIRES: cuda
// RUN: not %kinase-cc -g -O0 --cuda-device-only -S %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -g -O2 --cuda-device-only -S %s -o /dev/null 2>&1 | FileCheck %s
#include <cooperative_groups.h>
#include <cub/cub.cuh>
#include <cuda_fp16.h>
#include <kinase.h>
namespace cg = cooperative_groups;

__device__ double warp_total(const double2 *p) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  double2 v = p[tile.thread_rank()];
  for (int offset = 16; offset > 0; offset >>= 1) {
    double2 w = tile.shfl_down(v, offset);
    v.x += w.x;
    v.y += w.y;
  }
  return v.x + v.y;
}

__device__ void move_pair(const __half2 *a, __half2 *b) { *b = __shfl_down_sync(0xffffffffu, *a, 1); }

__device__ float exclusive_sum(const float *x) {
  using Scan = cub::WarpScan<float>;
  __shared__ typename Scan::TempStorage storage;
  float before;
  Scan(storage).ExclusiveSum(x[threadIdx.x % 32], before);
  return before;
}

__global__ void gradient(const double2 *p, double2 *dp) {
  // CHECK-DAG: warp-shuffle-bits.cu:24:{{[0-9]+}}: error: kinase: cannot differentiate '{{.*}}warp_total{{.*}}': it shuffles the bits of a double as two 32-bit integers (a cooperative groups shuffle of a struct holding doubles), through which its derivative would be lost
  __enzyme_autodiff((void *)warp_total, enzyme_dup, p, dp);
}

__global__ void pair_gradient(const __half2 *a, __half2 *da, __half2 *b, __half2 *db) {
  // CHECK-DAG: warp-shuffle-bits.cu:31:{{[0-9]+}}: error: kinase: cannot differentiate '{{.*}}move_pair{{.*}}': it shuffles 32 bits from memory into memory whose type nothing here tells (__shfl_sync on a __half2 or __nv_bfloat162 neither computed nor used as one, or cub's ShuffleUp or ShuffleDown of a value word by word, as WarpScan's ExclusiveSum does)
  __enzyme_autodiff((void *)move_pair, enzyme_dup, a, da, enzyme_dup, b, db);
}
__global__ void scan_gradient(const float *x, float *dx) {
  // CHECK-DAG: warp-shuffle-bits.cu:37:{{[0-9]+}}: error: kinase: cannot differentiate '{{.*}}exclusive_sum{{.*}}': it shuffles 32 bits from memory into memory whose type nothing here tells
  __enzyme_autodiff((void *)exclusive_sum, enzyme_dup, x, dx);
}
// CHECK: 3 errors generated
