// Warp cooperation on floats and doubles as CUDA programmers write it, in
// kernels launched from a differentiated host function and in device-side
// requests: a thread_block_tile<32>'s shfl_down tree and shfl broadcast,
// shfl_xor all-reduce, shfl_up scan and shfl rotation; cg::reduce (plus,
// and greater on tiles of 16), cg::inclusive_scan and cg::exclusive_scan;
// a struct of two values shuffled by the tile, down and from one lane
// (copied into ints, a double's halves alike); a double shuffled by hand as its halves
// (__double2loint, __double2hiint, __hiloint2double: those were integers,
// a silently zero gradient) and a float as its bits (__float_as_int); an
// indexed __shfl_sync whose source lane comes from __shfl_sync on ints and
// __reduce_add_sync; and a block scan through shared memory.
//   v_i = x_i^2;  out_i = r_i(v) per case, the segment a warp (16 lanes
//   for the tiles of 16) or the block;
//   d/dx_j sum_i w_i out_i = 2 x_j sum_i w_i dr_i/dv_j,
// dr_i/dv_j from each case's definition (a rotation: j the lane i reads).
// Reverse mode against these, forward mode (every out_i's tangent) too.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: not grep -E "kwhy__Z[0-9]+cooperate" %t.O0.ptx %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The up shuffles of the halves, by hand, go back down: the adjoint moves.
// CHECK-LABEL: .entry _Z15halves_gradientPKdPd(
// CHECK: shfl.sync.up.b32
// CHECK: shfl.sync.down.b32
// CHECK: ret;
// CHECK-LABEL: .entry __kinase_krev_{{[a-z]+}}__Z9cooperateIfEvPKT_PS0_PKii(
// CHECK-LABEL: .entry __kinase_krev_{{[a-z]+}}__Z9cooperateIdEvPKT_PS0_PKii(

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

namespace cg = cooperative_groups;

enum { N = 256, THREADS = 128, FULL = 0xffffffffu, SKIP = 3, SOURCE_LANE = 5 };

enum Case {
  TILE_DOWN_TREE,
  TILE_XOR_ALL_REDUCE,
  TILE_UP_SCAN,
  TILE_ROTATE,
  CG_REDUCE_PLUS,
  CG_REDUCE_GREATER_16,
  CG_INCLUSIVE_SCAN,
  CG_EXCLUSIVE_SCAN_16,
  TILE_STRUCT_TREE,
  TILE_STRUCT_BROADCAST,
  HALVES_BY_HAND_SCAN,
  INDEXED_FROM_INTS,
  BLOCK_SHARED_SCAN,
  CASES
};

template <class F> struct Pair {
  F a, b;
};

// Lane's value moved up by `offset` as integer bits, as pre-Volta code and
// hand-written libraries do: a double as its two halves.
__device__ double up_by_halves(double v, int offset) {
  int lo = __shfl_up_sync(FULL, __double2loint(v), offset);
  int hi = __shfl_up_sync(FULL, __double2hiint(v), offset);
  return __hiloint2double(hi, lo);
}

__device__ float up_by_halves(float v, int offset) {
  return __int_as_float(__shfl_up_sync(FULL, __float_as_int(v), offset));
}

template <class F> __global__ void cooperate(const F *x, F *out, const int *perm, int which) {
  auto block = cg::this_thread_block();
  auto tile = cg::tiled_partition<32>(block);
  auto half_tile = cg::tiled_partition<16>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lane = tile.thread_rank();
  F v = x[i] * x[i], r = v;
  switch (which) {
  case TILE_DOWN_TREE:
    for (int offset = 16; offset > 0; offset /= 2)
      r += tile.shfl_down(r, offset);
    r = tile.shfl(r, 0);
    break;
  case TILE_XOR_ALL_REDUCE:
    for (int mask = 1; mask < 32; mask *= 2)
      r += tile.shfl_xor(r, mask);
    break;
  case TILE_UP_SCAN:
    for (int offset = 1; offset < 32; offset *= 2) {
      F before = tile.shfl_up(r, offset);
      if (lane >= offset)
        r += before;
    }
    break;
  case TILE_ROTATE:
    r = tile.shfl(v, (lane + 1) % 32);
    break;
  case CG_REDUCE_PLUS:
    r = cg::reduce(tile, v, cg::plus<F>());
    break;
  case CG_REDUCE_GREATER_16:
    r = cg::reduce(half_tile, v, cg::greater<F>());
    break;
  case CG_INCLUSIVE_SCAN:
    r = cg::inclusive_scan(tile, v);
    break;
  case CG_EXCLUSIVE_SCAN_16:
    r = cg::exclusive_scan(half_tile, v);
    break;
  case TILE_STRUCT_TREE: { // {v, 2v} summed down the tile: 3 sum(v) in lane 0
    Pair<F> p = {v, 2 * v};
    for (int offset = 16; offset > 0; offset /= 2) {
      Pair<F> q = tile.shfl_down(p, offset);
      p.a += q.a;
      p.b += q.b;
    }
    r = tile.shfl(p.a + p.b, 0);
    break;
  }
  case TILE_STRUCT_BROADCAST: { // lane SOURCE_LANE's {v, 2v}
    Pair<F> p = {v, 2 * v}, q = tile.shfl(p, SOURCE_LANE);
    r = q.a + q.b;
    break;
  }
  case HALVES_BY_HAND_SCAN:
    for (int offset = 1; offset < 32; offset *= 2) {
      F before = up_by_halves(r, offset);
      if (lane >= offset)
        r += before;
    }
    break;
  case INDEXED_FROM_INTS: { // v of lane perm[lane + SKIP] of the warp
    int source = __shfl_sync(FULL, perm[lane], (lane + SKIP) % 32);
    int lanes = __reduce_add_sync(FULL, 1);
    r = __shfl_sync(FULL, v, (source + lanes) % 32);
    break;
  }
  case BLOCK_SHARED_SCAN: { // Hillis-Steele, double-buffered
    __shared__ F buffer[2][THREADS];
    int from = 0;
    buffer[from][threadIdx.x] = v;
    __syncthreads();
    for (int offset = 1; offset < THREADS; offset *= 2) {
      F s = buffer[from][threadIdx.x];
      if (threadIdx.x >= offset)
        s += buffer[from][threadIdx.x - offset];
      buffer[1 - from][threadIdx.x] = s;
      from = 1 - from;
      __syncthreads();
    }
    r = buffer[from][threadIdx.x];
    break;
  }
  }
  out[i] = r;
}

template <class F> void run_cooperate(const F *x, F *out, const int *perm, int which) {
  cooperate<F><<<N / THREADS, THREADS>>>(x, out, perm, which);
}

// Device-side requests: a double inclusive scan with its halves moved by
// hand, and cg::reduce of doubles.
__device__ double halves_scan(const double *x) {
  double r = x[threadIdx.x] * x[threadIdx.x];
  for (int offset = 1; offset < 32; offset *= 2) {
    double before = up_by_halves(r, offset);
    if (threadIdx.x % 32 >= offset)
      r += before;
  }
  return r;
}

__global__ void halves_gradient(const double *x, double *dx) {
  __enzyme_autodiff((void *)halves_scan, enzyme_dup, x, dx);
}

__device__ double tile_total(const double *x) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  double v = x[threadIdx.x];
  return cg::reduce(tile, v * v, cg::plus<double>());
}

__global__ void total_gradient(const double *x, double *dx) {
  __enzyme_autodiff((void *)tile_total, enzyme_dup, x, dx);
}

// dr_i/dv_j for the case, v the inputs (their argmax decides the maxima).
static double partial(int which, int i, int j, const std::vector<double> &v, const std::vector<int> &perm) {
  int segment = which == BLOCK_SHARED_SCAN ? THREADS
                : which == CG_REDUCE_GREATER_16 || which == CG_EXCLUSIVE_SCAN_16 ? 16
                                                                                   : 32;
  int first = i / segment * segment, lane = i % 32;
  if (j / segment * segment != first)
    return 0;
  int argmax = first;
  for (int k = first; k < first + segment; k++)
    if (v[k] > v[argmax])
      argmax = k;
  switch (which) {
  case TILE_DOWN_TREE:
  case TILE_XOR_ALL_REDUCE:
  case CG_REDUCE_PLUS:
    return 1;
  case TILE_STRUCT_TREE:
    return 3;
  case TILE_STRUCT_BROADCAST:
    return j - first == SOURCE_LANE ? 3 : 0;
  case TILE_UP_SCAN:
  case CG_INCLUSIVE_SCAN:
  case HALVES_BY_HAND_SCAN:
  case BLOCK_SHARED_SCAN:
    return j <= i;
  case CG_EXCLUSIVE_SCAN_16:
    return j < i;
  case CG_REDUCE_GREATER_16:
    return j == argmax;
  case TILE_ROTATE:
    return j - first == (lane + 1) % 32;
  case INDEXED_FROM_INTS:
    return j - first == (perm[(lane + SKIP) % 32] + 32) % 32;
  }
  return 0;
}

static const char *const names[CASES] = {
    "tile.shfl_down tree",     "tile.shfl_xor all-reduce", "tile.shfl_up scan",
    "tile.shfl rotation",      "cg::reduce plus",          "cg::reduce greater (16)",
    "cg::inclusive_scan",      "cg::exclusive_scan (16)",  "tile struct tree",
    "tile struct broadcast",   "halves by hand scan",      "__shfl_sync from ints",
    "shared-memory block scan"};

template <class F> static void check_cases(double rtol) {
  std::vector<F> x(N), zero(N, 0), w(N), dir(N);
  std::vector<double> v(N);
  std::vector<int> perm(32);
  for (int k = 0; k < 32; k++)
    perm[k] = (k * 7 + 5) % 32;
  for (int i = 0; i < N; i++) {
    x[i] = F(0.5 + (double)(i * 37 % N) / N); // distinct values: maxima unique
    w[i] = F(1 + 0.5 * cos(0.1 * i));
    dir[i] = F(sin(0.7 * i));
    v[i] = (double)(x[i] * x[i]);
  }
  for (int which = 0; which < CASES; which++) {
    F *d_x = to_device(x), *d_dx = to_device(zero), *d_out = to_device(zero), *d_w = to_device(w);
    int *d_perm = to_device(perm);
    __enzyme_autodiff((void *)run_cooperate<F>, enzyme_dup, d_x, d_dx, enzyme_dupnoneed, d_out, d_w,
                      enzyme_const, d_perm, which);
    check_kernel(names[which]);
    F *d_dir = to_device(dir), *d_tangent = to_device(zero);
    __enzyme_fwddiff((void *)run_cooperate<F>, enzyme_dup, d_x, d_dir, enzyme_dup, d_out, d_tangent,
                     enzyme_const, d_perm, which);
    check_kernel(names[which]);
    std::vector<F> dx(N), tangent(N);
    from_device(dx, d_dx);
    from_device(tangent, d_tangent);
    auto jacobian = [&](int i, int j) { return partial(which, i, j, v, perm) * 2 * x[j]; };
    check_jacobian(dx, tangent, w, dir, jacobian, rtol, names[which]);
    device_free_all();
  }
}

int main() {
  require_device();
  check_cases<float>(1e-4);
  check_cases<double>(1e-11);

  // Two warps; every lane's result seeded with 1.
  std::vector<double> x(64), zero(64, 0.0);
  for (int i = 0; i < 64; i++)
    x[i] = 0.3 + 0.02 * i;
  double *d_x = to_device(x), *d_dx = to_device(zero), *d_dt = to_device(zero);
  halves_gradient<<<1, 64>>>(d_x, d_dx);
  check_kernel("halves_gradient");
  total_gradient<<<1, 64>>>(d_x, d_dt);
  check_kernel("total_gradient");
  std::vector<double> dx(64), dt(64);
  from_device(dx, d_dx);
  from_device(dt, d_dt);
  for (int j = 0; j < 64; j++) {
    check_close(dx[j], 2 * x[j] * (32 - j % 32), 1e-12, "device-side scan by halves d/dx[%d]", j);
    check_close(dt[j], 2 * x[j] * 32, 1e-12, "device-side cg::reduce d/dx[%d]", j);
  }
  device_free_all();
  return check_exit();
}
