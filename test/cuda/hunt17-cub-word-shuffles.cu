// cub's warp and block collectives whose shuffles move the value word by
// word (ShuffleUp, ShuffleDown, ShuffleIndex: the first word, then a loop
// over the rest through locals): WarpScan's ExclusiveSum, Broadcast and
// scans with an operator, BlockScan, WarpReduce and BlockReduce with an
// operator (on logical warps of 16 lanes too, and raking), WarpReduce's
// Sum over the first lanes only, and an exclusive scan from an initial
// value, of floats and doubles, in kernels launched from a differentiated host function, and
// in device-side requests. They were errors ("it shuffles 32 bits from
// memory into memory ..."): kernels without derivatives, a request
// refused. Now the word loops are unrolled (a float has one word, a
// double two, whose halves become the double's shuffle).
//   v_i = x_i^2;  out_i = r_i(v) per case, the segment a warp or a block;
//   d/dx_j sum_i w_i out_i = 2 x_j sum_i w_i dr_i/dv_j,
// with dr_i/dv_j 1 or 0 from each collective's definition (an exclusive
// sum: j < i in i's segment; a maximum: j the argmax). Reverse mode
// against these, forward mode (the tangent of every out_i) too.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: not grep -E "kwhy__Z[0-9]+collective" %t.O0.ptx %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The exclusive sum's up shuffle of a double goes back down as two words.
// CHECK-LABEL: .entry _Z13scan_gradientPKdPdS0_(
// CHECK: shfl.sync.up.b32
// CHECK: shfl.sync.down.b32
// CHECK: shfl.sync.down.b32
// CHECK: ret;
// CHECK-LABEL: .entry __kinase_krev_{{[a-z]+}}__Z10collectiveIfEvPKT_PS0_i(
// CHECK-LABEL: .entry __kinase_krev_{{[a-z]+}}__Z10collectiveIdEvPKT_PS0_i(

#include <cub/cub.cuh>
#include <cuda/functional>
#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 256, THREADS = 128, WARPS = THREADS / 32, VALID = 20, SOURCE_LANE = 3 };

enum Case {
  WARP_EXCLUSIVE_SUM,
  BLOCK_EXCLUSIVE_SUM,
  BLOCK_INCLUSIVE_SUM_WARP_SCANS,
  WARP_REDUCE_USER_ADD,
  BLOCK_REDUCE_MAXIMUM,
  WARP_INCLUSIVE_MAX_SCAN,
  WARP_BROADCAST,
  WARP_SUM_FIRST_LANES,
  HALF_WARP_REDUCE_USER_ADD,
  BLOCK_REDUCE_RAKING_USER_ADD,
  WARP_EXCLUSIVE_SCAN_INITIAL,
  CASES
};

struct Add {
  template <class F> __device__ F operator()(F a, F b) const { return a + b; }
};
struct Larger {
  template <class F> __device__ F operator()(F a, F b) const { return a > b ? a : b; }
};

template <class F> __global__ void collective(const F *x, F *out, int which) {
  using WarpScan = cub::WarpScan<F>;
  using WarpReduce = cub::WarpReduce<F>;
  using BlockScan = cub::BlockScan<F, THREADS>;
  using BlockScanWarps = cub::BlockScan<F, THREADS, cub::BLOCK_SCAN_WARP_SCANS>;
  using BlockReduce = cub::BlockReduce<F, THREADS, cub::BLOCK_REDUCE_WARP_REDUCTIONS>;
  using BlockReduceRaking = cub::BlockReduce<F, THREADS, cub::BLOCK_REDUCE_RAKING>;
  using HalfWarpReduce = cub::WarpReduce<F, 16>;
  __shared__ union {
    typename WarpScan::TempStorage warp_scan[WARPS];
    typename WarpReduce::TempStorage warp_reduce[WARPS];
    typename BlockScan::TempStorage block_scan;
    typename BlockScanWarps::TempStorage block_scan_warps;
    typename BlockReduce::TempStorage block_reduce;
    typename BlockReduceRaking::TempStorage block_reduce_raking;
    typename HalfWarpReduce::TempStorage half_warp_reduce[2 * WARPS];
  } storage;
  __shared__ F leader[2 * WARPS];
  int i = blockIdx.x * blockDim.x + threadIdx.x, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  F v = x[i] * x[i], r = 0;
  switch (which) {
  case WARP_EXCLUSIVE_SUM:
    WarpScan(storage.warp_scan[warp]).ExclusiveSum(v, r);
    break;
  case BLOCK_EXCLUSIVE_SUM:
    BlockScan(storage.block_scan).ExclusiveSum(v, r);
    break;
  case BLOCK_INCLUSIVE_SUM_WARP_SCANS:
    BlockScanWarps(storage.block_scan_warps).InclusiveSum(v, r);
    break;
  case WARP_REDUCE_USER_ADD: // lane 0's, shared with the warp
    r = WarpReduce(storage.warp_reduce[warp]).Reduce(v, Add());
    if (lane == 0)
      leader[warp] = r;
    __syncwarp();
    r = leader[warp];
    break;
  case BLOCK_REDUCE_MAXIMUM: // thread 0's, shared with the block
    r = BlockReduce(storage.block_reduce).Reduce(v, cuda::maximum<>{});
    if (threadIdx.x == 0)
      leader[0] = r;
    __syncthreads();
    r = leader[0];
    break;
  case WARP_INCLUSIVE_MAX_SCAN:
    WarpScan(storage.warp_scan[warp]).InclusiveScan(v, r, Larger());
    break;
  case WARP_BROADCAST:
    r = WarpScan(storage.warp_scan[warp]).Broadcast(v, SOURCE_LANE);
    break;
  case WARP_SUM_FIRST_LANES: // lanes below VALID, lane 0's, shared
    r = WarpReduce(storage.warp_reduce[warp]).Sum(v, VALID);
    if (lane == 0)
      leader[warp] = r;
    __syncwarp();
    r = leader[warp];
    break;
  case HALF_WARP_REDUCE_USER_ADD: // logical warps of 16 lanes, each lane 0's
    r = HalfWarpReduce(storage.half_warp_reduce[threadIdx.x / 16]).Reduce(v, Add());
    if (lane % 16 == 0)
      leader[threadIdx.x / 16] = r;
    __syncwarp();
    r = leader[threadIdx.x / 16];
    break;
  case BLOCK_REDUCE_RAKING_USER_ADD:
    r = BlockReduceRaking(storage.block_reduce_raking).Reduce(v, Add());
    if (threadIdx.x == 0)
      leader[0] = r;
    __syncthreads();
    r = leader[0];
    break;
  case WARP_EXCLUSIVE_SCAN_INITIAL: // lane 0 gets the constant
    WarpScan(storage.warp_scan[warp]).ExclusiveScan(v, r, F(1.5), Add());
    break;
  }
  out[i] = r;
}

template <class F> void run_collective(const F *x, F *out, int which) {
  collective<F><<<N / THREADS, THREADS>>>(x, out, which);
}

// Device-side requests: a double exclusive sum weighted per lane, and lane
// 0's float sum through an operator of the user's.
__device__ double scan_weighted(const double *x, const double *w) {
  using Scan = cub::WarpScan<double>;
  __shared__ typename Scan::TempStorage storage;
  double before;
  Scan(storage).ExclusiveSum(x[threadIdx.x] * x[threadIdx.x], before);
  return before * w[threadIdx.x];
}

__global__ void scan_gradient(const double *x, double *dx, const double *w) {
  __enzyme_autodiff((void *)scan_weighted, enzyme_dup, x, dx, enzyme_const, w);
}

__device__ float leader_total(const float *x) {
  using Reduce = cub::WarpReduce<float>;
  __shared__ typename Reduce::TempStorage storage;
  float total = Reduce(storage).Reduce(x[threadIdx.x] * x[threadIdx.x], Add());
  return threadIdx.x == 0 ? total : 0.0f;
}

__global__ void total_gradient(const float *x, float *dx) {
  __enzyme_autodiff((void *)leader_total, enzyme_dup, x, dx);
}

// dr_i/dv_j for the case, v the inputs (their argmax decides the maxima).
static double partial(int which, int i, int j, const std::vector<double> &v) {
  int segment = which == BLOCK_EXCLUSIVE_SUM || which == BLOCK_INCLUSIVE_SUM_WARP_SCANS ||
                        which == BLOCK_REDUCE_MAXIMUM || which == BLOCK_REDUCE_RAKING_USER_ADD
                    ? THREADS
                : which == HALF_WARP_REDUCE_USER_ADD ? 16
                                                     : 32;
  int first = i / segment * segment;
  if (j / segment * segment != first)
    return 0;
  int argmax = first;
  for (int k = first; k <= (which == WARP_INCLUSIVE_MAX_SCAN ? i : first + segment - 1); k++)
    if (v[k] > v[argmax])
      argmax = k;
  switch (which) {
  case WARP_EXCLUSIVE_SUM:
  case BLOCK_EXCLUSIVE_SUM:
  case WARP_EXCLUSIVE_SCAN_INITIAL:
    return j < i;
  case BLOCK_INCLUSIVE_SUM_WARP_SCANS:
    return j <= i;
  case WARP_REDUCE_USER_ADD:
  case HALF_WARP_REDUCE_USER_ADD:
  case BLOCK_REDUCE_RAKING_USER_ADD:
    return 1;
  case BLOCK_REDUCE_MAXIMUM:
  case WARP_INCLUSIVE_MAX_SCAN:
    return j == argmax;
  case WARP_BROADCAST:
    return j - first == SOURCE_LANE;
  case WARP_SUM_FIRST_LANES:
    return j - first < VALID;
  }
  return 0;
}

static const char *const names[CASES] = {
    "WarpScan::ExclusiveSum",           "BlockScan::ExclusiveSum",
    "BlockScan<WARP_SCANS>::InclusiveSum", "WarpReduce::Reduce(user add)",
    "BlockReduce::Reduce(max)",         "WarpScan::InclusiveScan(max)",
    "WarpScan::Broadcast",              "WarpReduce::Sum(valid)",
    "WarpReduce<16>::Reduce(user add)", "BlockReduce<RAKING>::Reduce(user add)",
    "WarpScan::ExclusiveScan(initial)"};

template <class F> static void check_cases(double rtol) {
  std::vector<F> x(N), zero(N, 0), w(N), dir(N);
  std::vector<double> v(N);
  for (int i = 0; i < N; i++) {
    x[i] = F(0.5 + (double)(i * 37 % N) / N); // distinct values: maxima unique
    w[i] = F(1 + 0.5 * cos(0.1 * i));
    dir[i] = F(sin(0.7 * i));
    v[i] = (double)(x[i] * x[i]);
  }
  for (int which = 0; which < CASES; which++) {
    F *d_x = to_device(x), *d_dx = to_device(zero), *d_out = to_device(zero), *d_w = to_device(w);
    __enzyme_autodiff((void *)run_collective<F>, enzyme_dup, d_x, d_dx, enzyme_dupnoneed, d_out, d_w, which);
    check_kernel(names[which]);
    F *d_dir = to_device(dir), *d_tangent = to_device(zero);
    __enzyme_fwddiff((void *)run_collective<F>, enzyme_dup, d_x, d_dir, enzyme_dup, d_out, d_tangent, which);
    check_kernel(names[which]);
    std::vector<F> dx(N), tangent(N);
    from_device(dx, d_dx);
    from_device(tangent, d_tangent);
    auto jacobian = [&](int i, int j) { return partial(which, i, j, v) * 2 * x[j]; };
    check_jacobian(dx, tangent, w, dir, jacobian, rtol, names[which]);
    device_free_all();
  }
}

int main() {
  require_device();
  check_cases<float>(1e-4);
  check_cases<double>(1e-11);

  std::vector<double> x(32), w(32), zero(32, 0.0);
  std::vector<float> xf(32), zerof(32, 0.0f);
  for (int i = 0; i < 32; i++) {
    x[i] = 0.3 + 0.05 * i;
    w[i] = 1.0 + 0.25 * sin(0.4 * i);
    xf[i] = (float)x[i];
  }
  double *d_x = to_device(x), *d_dx = to_device(zero), *d_w = to_device(w);
  scan_gradient<<<1, 32>>>(d_x, d_dx, d_w);
  check_kernel("scan_gradient");
  float *d_xf = to_device(xf), *d_dxf = to_device(zerof);
  total_gradient<<<1, 32>>>(d_xf, d_dxf);
  check_kernel("total_gradient");
  std::vector<double> dx(32);
  std::vector<float> dxf(32);
  from_device(dx, d_dx);
  from_device(dxf, d_dxf);
  for (int j = 0; j < 32; j++) {
    double after = 0;
    for (int i = j + 1; i < 32; i++)
      after += w[i];
    check_close(dx[j], 2 * x[j] * after, 1e-12, "device-side exclusive sum d/dx[%d]", j);
    check_close(dxf[j], 2 * xf[j], 1e-5, "device-side user reduction d/dx[%d]", j);
  }
  device_free_all();
  return check_exit();
}
