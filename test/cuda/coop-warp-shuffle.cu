// Warp shuffles differentiated through host code that launches kernels and
// in a device-side request: a __shfl_down_sync reduction (float) finished
// with atomicAdd, a __shfl_xor_sync all-reduce (double), a __shfl_up_sync
// scan, __shfl_sync broadcast and rotation, a reduction in segments of 8
// lanes (width 8), a cub-style block reduction (shuffles within warps, then
// shared memory across warps), and forward mode through the scan. Against
// analytic gradients.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: not grep -E "kwhy__Z[0-9]+(warp_sum|all_reduce|scan|broadcast|segments|block_sum)" %t.O0.ptx %t.ptx
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The transpose of a down shuffle is an up shuffle of the adjoint, from the
// lanes whose read was valid; a butterfly is its own transpose:
// CHECK-LABEL: .entry __kinase_krev_nd__Z8warp_sumPfPKfi(
// CHECK: shfl.sync.down.b32
// CHECK: shfl.sync.up.b32 {{.*}}|%p
// CHECK: ret;
// CHECK-LABEL: .entry __kinase_krev_ndd__Z10all_reducePdPKdS1_i(
// CHECK: shfl.sync.bfly.b32
// CHECK: shfl.sync.bfly.b32 {{.*}}|%p
// CHECK: ret;

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { T = 128, BLOCKS = 9, N = T * BLOCKS - 45, FULL = 0xffffffff };

__global__ void warp_sum(float *out, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] * x[i] : 0.f;
  for (int o = 16; o > 0; o /= 2)
    v += __shfl_down_sync(FULL, v, o);
  if ((threadIdx.x & 31) == 0)
    atomicAdd(out, v);
}

__global__ void all_reduce(double *out, const double *x, const double *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double v = i < n ? x[i] * x[i] : 0.0;
  for (int o = 1; o < 32; o *= 2)
    v += __shfl_xor_sync(FULL, v, o);
  if (i < n)
    out[i] = c[i] * v;
}

__global__ void scan(float *out, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
  float v = i < n ? x[i] : 0.f;
  for (int o = 1; o < 32; o *= 2) {
    float up = __shfl_up_sync(FULL, v, o);
    if (lane >= o)
      v += up;
  }
  if (i < n)
    out[i] = v;
}

__global__ void broadcast(float *out, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
  float v = i < n ? x[i] : 0.f;
  float first = __shfl_sync(FULL, v, 0), next = __shfl_sync(FULL, v, (lane + 3) & 31);
  if (i < n)
    out[i] = v * first + next;
}

__global__ void segments(float *out, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.f;
  for (int o = 4; o > 0; o /= 2)
    v += __shfl_down_sync(FULL, v, o, 8);
  if (i % 8 == 0 && i < n)
    out[i / 8] = v;
}

__global__ void block_sum(float *out, const float *x, int n) {
  __shared__ float per_warp[T / 32];
  int i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31, warp = threadIdx.x / 32;
  float v = i < n ? x[i] * x[i] * x[i] : 0.f;
  for (int o = 16; o > 0; o /= 2)
    v += __shfl_down_sync(FULL, v, o);
  if (lane == 0)
    per_warp[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < T / 32 ? per_warp[lane] : 0.f;
    for (int o = 16; o > 0; o /= 2)
      v += __shfl_down_sync(FULL, v, o);
    if (lane == 0)
      atomicAdd(out, v);
  }
}

void launch_warp_sum(float *out, const float *x, int n) { warp_sum<<<BLOCKS, T>>>(out, x, n); }
void launch_all_reduce(double *out, const double *x, const double *c, int n) {
  all_reduce<<<BLOCKS, T>>>(out, x, c, n);
}
void launch_scan(float *out, const float *x, int n) { scan<<<BLOCKS, T>>>(out, x, n); }
void launch_broadcast(float *out, const float *x, int n) { broadcast<<<BLOCKS, T>>>(out, x, n); }
void launch_segments(float *out, const float *x, int n) { segments<<<BLOCKS, T>>>(out, x, n); }
void launch_block_sum(float *out, const float *x, int n) { block_sum<<<BLOCKS, T>>>(out, x, n); }

/* Every lane returns the sum over its warp of x^2. */
__device__ float warp_energy(const float *x) {
  float v = x[threadIdx.x & 31] * x[threadIdx.x & 31];
  for (int o = 16; o > 0; o /= 2)
    v += __shfl_xor_sync(FULL, v, o);
  return v;
}

__global__ void energy_gradient(const float *x, float *dx) {
  int base = blockIdx.x * blockDim.x + (threadIdx.x & ~31);
  __enzyme_autodiff((void *)warp_energy, enzyme_dup, x + base, dx + base);
}

static float scalar_seed(float *d_out, float *d_dout) {
  float zero = 0.f, one = 1.f;
  check_cuda(cudaMemcpy(d_out, &zero, sizeof zero, cudaMemcpyHostToDevice), "copy");
  check_cuda(cudaMemcpy(d_dout, &one, sizeof one, cudaMemcpyHostToDevice), "copy");
  return one;
}

int main(void) {
  require_device();
  std::vector<float> x(N), w(N), tx(N);
  std::vector<double> xd(N), c(N);
  for (int i = 0; i < N; i++) {
    x[i] = 0.5f + 0.4f * sinf(0.21f * i);
    w[i] = 1.0f + 0.01f * (i % 17);
    tx[i] = cosf(0.05f * i);
    xd[i] = 0.3 + cos(0.17 * i);
    c[i] = 0.5 + 0.02 * (i % 23);
  }
  float *d_x = to_device(x), *d_w = to_device(w), *d_tx = to_device(tx);
  float *d_dx = device_alloc<float>(N), *d_out = device_alloc<float>(N), *d_dout = device_alloc<float>(N);
  std::vector<float> dx(N);
  auto clear_dx = [&] { check_cuda(cudaMemset(d_dx, 0, N * sizeof(float)), "memset"); };

  /* Down-shuffle reduction into one atomicAdd per warp: d/dx = 2x. */
  clear_dx();
  scalar_seed(d_out, d_dout);
  __enzyme_autodiff((void *)launch_warp_sum, enzyme_dup, d_out, d_dout, enzyme_const, d_x, N);
  check_kernel("gradient of warp_sum, x const");
  __enzyme_autodiff((void *)launch_warp_sum, enzyme_dup, d_out, d_dout, enzyme_dup, d_x, d_dx, N);
  check_kernel("gradient of warp_sum");
  from_device(dx, d_dx);
  for (int i = 0; i < N; i++)
    check_close(dx[i], 2.0 * x[i], 1e-5, "warp_sum: d/dx[%d]", i);

  /* Butterfly all-reduce in double: out[i] = c[i] * (warp's sum of x^2). */
  double *d_xd = to_device(xd), *d_c = to_device(c), *d_dxd = device_alloc<double>(N);
  double *d_outd = device_alloc<double>(N), *d_doutd = device_alloc<double>(N);
  std::vector<double> ones(N, 1.0), dxd(N);
  check_cuda(cudaMemcpy(d_doutd, ones.data(), N * sizeof(double), cudaMemcpyHostToDevice), "copy");
  check_cuda(cudaMemset(d_dxd, 0, N * sizeof(double)), "memset");
  __enzyme_autodiff((void *)launch_all_reduce, enzyme_dup, d_outd, d_doutd, enzyme_dup, d_xd, d_dxd,
                    enzyme_const, d_c, N);
  check_kernel("gradient of all_reduce");
  from_device(dxd, d_dxd);
  for (int i = 0; i < N; i++) {
    double csum = 0;
    for (int l = i & ~31; l < (i | 31) + 1 && l < N; l++)
      csum += c[l];
    check_close(dxd[i], 2.0 * xd[i] * csum, 1e-12, "all_reduce: d/dx[%d]", i);
  }

  /* Up-shuffle inclusive scan, seeded with w: dx[j] = sum of w[i], i >= j in the warp. */
  auto seed_w = [&] { check_cuda(cudaMemcpy(d_dout, w.data(), N * sizeof(float), cudaMemcpyHostToDevice), "copy"); };
  clear_dx();
  seed_w();
  __enzyme_autodiff((void *)launch_scan, enzyme_dupnoneed, d_out, d_dout, enzyme_dup, d_x, d_dx, N);
  check_kernel("gradient of scan");
  from_device(dx, d_dx);
  for (int j = 0; j < N; j++) {
    double want = 0;
    for (int i = j; i <= (j | 31) && i < N; i++)
      want += w[i];
    check_close(dx[j], want, 1e-5, "scan: d/dx[%d]", j);
  }
  /* Forward mode: the scan of the tangent. */
  float *d_dir = device_alloc<float>(N);
  __enzyme_fwddiff((void *)launch_scan, enzyme_dup, d_out, d_dir, enzyme_dup, d_x, d_tx, N);
  check_kernel("tangent of scan");
  std::vector<float> dir(N);
  from_device(dir, d_dir);
  for (int i = 0; i < N; i++) {
    double want = 0;
    for (int j = i & ~31; j <= i; j++)
      want += tx[j];
    check_close(dir[i], want, 1e-5, "scan: tangent of out[%d]", i);
  }

  /* Broadcast from lane 0 and a rotation by 3 lanes, seeded with w. */
  clear_dx();
  seed_w();
  __enzyme_autodiff((void *)launch_broadcast, enzyme_dupnoneed, d_out, d_dout, enzyme_dup, d_x, d_dx, N);
  check_kernel("gradient of broadcast");
  from_device(dx, d_dx);
  for (int j = 0; j < N; j++) {
    int base = j & ~31, lane = j & 31;
    double want = w[j] * x[base];
    if (lane == 0)
      for (int i = base; i < base + 32 && i < N; i++)
        want += w[i] * x[i];
    int reader = base + ((lane - 3) & 31);
    if (reader < N)
      want += w[reader];
    check_close(dx[j], want, 1e-5, "broadcast: d/dx[%d]", j);
  }

  /* Sums over segments of 8 lanes, seeded with w[segment]. */
  clear_dx();
  seed_w();
  __enzyme_autodiff((void *)launch_segments, enzyme_dupnoneed, d_out, d_dout, enzyme_dup, d_x, d_dx, N);
  check_kernel("gradient of segments");
  from_device(dx, d_dx);
  for (int j = 0; j < N; j++)
    check_close(dx[j], w[j / 8], 1e-6, "segments: d/dx[%d]", j);

  /* cub-style block reduction of x^3: d/dx = 3x^2. */
  clear_dx();
  scalar_seed(d_out, d_dout);
  __enzyme_autodiff((void *)launch_block_sum, enzyme_dup, d_out, d_dout, enzyme_dup, d_x, d_dx, N);
  check_kernel("gradient of block_sum");
  from_device(dx, d_dx);
  for (int i = 0; i < N; i++)
    check_close(dx[i], 3.0 * x[i] * x[i], 1e-5, "block_sum: d/dx[%d]", i);

  /* A device-side request: every lane's result is its warp's sum. */
  clear_dx();
  energy_gradient<<<BLOCKS - 1, T>>>(d_x, d_dx);
  check_kernel("energy_gradient");
  from_device(dx, d_dx);
  for (int i = 0; i < T * (BLOCKS - 1); i++)
    check_close(dx[i], 64.0 * x[i], 1e-5, "warp_energy: d/dx[%d]", i);
  device_free_all();
  return check_exit();
}
