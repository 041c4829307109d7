// Kernels that cooperate through __shared__ memory and __syncthreads(),
// differentiated through host code that launches them and in a device-side
// request: a tree reduction of squares finished with atomicAdd (float, the
// loop halving with >>=), a double block dot product storing one partial sum
// per block (the loop halving with /= 2), the same through extern __shared__
// memory sized by the launch, and a __device__ function reducing in shared
// memory under __enzyme_autodiff inside a kernel. Reverse and forward mode,
// against analytic gradients.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: not grep -E "kwhy__Z[0-9]+(sum_of_sq|block_dot|dynamic_sum)" %t.O0.ptx %t.ptx
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// Both launched kernels differentiate (no reason recorded) with no tape on
// the device heap. The reverse kernel of the reduction clears the shadow of
// what it stores in shared memory, does not repeat the primal's atomicAdd
// into `out` (the primal launch made it), then accumulates into the shared
// shadow atomically, waiting at a barrier for each of the primal's:
// RUN: not grep malloc %t.ptx
// CHECK-LABEL: .entry __kinase_krev_nd__Z9sum_of_sqPfPKfi(
// CHECK: st.shared.b32 [%rd{{[0-9]+}}], 0;
// CHECK: bar.sync 0;
// CHECK: bar.sync 0;
// CHECK: atom.shared.add.f32
// CHECK: bar.sync 0;
// CHECK: atom.shared.add.f32
// CHECK: bar.sync 0;
// CHECK: ret;

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { T = 256, BLOCKS = 37, N = T * BLOCKS - 100 };

__global__ void sum_of_sq(float *out, const float *x, int n) {
  __shared__ float s[T];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  float v = i < n ? x[i] : 0.f;
  s[t] = v * v;
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k)
      s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0)
    atomicAdd(out, s[0]);
}

__global__ void block_dot(double *partial, const double *x, const double *y, int n) {
  __shared__ double s[T];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? x[i] * y[i] : 0.0;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (t < k)
      s[t] = s[t] + s[t + k];
    __syncthreads();
  }
  if (t == 0)
    partial[blockIdx.x] = s[0];
}

/* The launch sizes the block's buffer: its derivative kernels are launched
 * with twice as much, the second half holding the shadow. */
__global__ void dynamic_sum(double *partial, const double *x, int n) {
  extern __shared__ double buf[];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  buf[t] = i < n ? exp(x[i]) : 0.0;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (t < k)
      buf[t] += buf[t + k];
    __syncthreads();
  }
  if (t == 0)
    partial[blockIdx.x] = buf[0];
}

void dynamic_sums(double *partial, const double *x, int n) {
  dynamic_sum<<<(n + T - 1) / T, T, T * sizeof(double)>>>(partial, x, n);
}

void total(float *out, const float *x, int n) { sum_of_sq<<<(n + T - 1) / T, T>>>(out, x, n); }

void dots(double *partial, const double *x, const double *y, int n) {
  block_dot<<<(n + T - 1) / T, T>>>(partial, x, y, n);
}

/* Thread 0 of the block returns the block's sum of cubes; the others 0. */
__device__ float block_cubes(const float *x) {
  __shared__ float s[T];
  int t = threadIdx.x;
  s[t] = x[t] * x[t] * x[t];
  __syncthreads();
  for (int k = T / 2; k > 0; k >>= 1) {
    if (t < k)
      s[t] += s[t + k];
    __syncthreads();
  }
  return t == 0 ? s[0] : 0.f;
}

__global__ void cubes_gradient(const float *x, float *dx) {
  int base = blockIdx.x * T;
  __enzyme_autodiff((void *)block_cubes, enzyme_dup, x + base, dx + base);
}

int main(void) {
  require_device();
  std::vector<float> x(N), tx(N);
  std::vector<double> xd(N), yd(N), txd(N);
  for (int i = 0; i < N; i++) {
    x[i] = sinf(0.013f * i) + 0.1f;
    tx[i] = cosf(0.007f * i);
    xd[i] = cos(0.011 * i) - 0.2;
    yd[i] = 0.5 + 0.25 * sin(0.03 * i);
    txd[i] = 1.0 - 0.001 * i;
  }
  float *d_x = to_device(x), *d_dx = device_alloc<float>(N), *d_tx = to_device(tx);
  float *d_out = device_alloc<float>(1), *d_dout = device_alloc<float>(1);
  float one = 1.f, zero = 0.f;
  check_cuda(cudaMemcpy(d_out, &zero, sizeof one, cudaMemcpyHostToDevice), "copy");
  check_cuda(cudaMemcpy(d_dout, &one, sizeof one, cudaMemcpyHostToDevice), "copy");
  check_cuda(cudaMemset(d_dx, 0, N * sizeof(float)), "memset");
  __enzyme_autodiff((void *)total, enzyme_dup, d_out, d_dout, enzyme_dup, d_x, d_dx, N);
  check_kernel("gradient of total");
  std::vector<float> dx(N);
  from_device(dx, d_dx);
  for (int i = 0; i < N; i++)
    check_close(dx[i], 2.0 * x[i], 1e-5, "d sum x^2 / dx[%d]", i);

  float *d_dir = device_alloc<float>(1);
  check_cuda(cudaMemcpy(d_out, &zero, sizeof one, cudaMemcpyHostToDevice), "copy");
  check_cuda(cudaMemcpy(d_dir, &zero, sizeof one, cudaMemcpyHostToDevice), "copy");
  __enzyme_fwddiff((void *)total, enzyme_dup, d_out, d_dir, enzyme_dup, d_x, d_tx, N);
  check_kernel("tangent of total");
  float dir, sum;
  check_cuda(cudaMemcpy(&dir, d_dir, sizeof dir, cudaMemcpyDeviceToHost), "copy");
  check_cuda(cudaMemcpy(&sum, d_out, sizeof sum, cudaMemcpyDeviceToHost), "copy");
  double want_dir = 0, want_sum = 0;
  for (int i = 0; i < N; i++) {
    want_dir += 2.0 * x[i] * tx[i];
    want_sum += (double)x[i] * x[i];
  }
  check_close(dir, want_dir, 1e-4, "tangent of sum x^2");
  check_close(sum, want_sum, 1e-4, "sum x^2 in forward mode");

  /* Doubles, one partial sum per block, seeded per block; y constant. */
  double *d_xd = to_device(xd), *d_yd = to_device(yd), *d_dxd = device_alloc<double>(N);
  double *d_part = device_alloc<double>(BLOCKS), *d_dpart = device_alloc<double>(BLOCKS);
  std::vector<double> seed(BLOCKS);
  for (int b = 0; b < BLOCKS; b++)
    seed[b] = 1.0 + 0.5 * b;
  check_cuda(cudaMemcpy(d_dpart, seed.data(), BLOCKS * sizeof(double), cudaMemcpyHostToDevice), "copy");
  check_cuda(cudaMemset(d_dxd, 0, N * sizeof(double)), "memset");
  __enzyme_autodiff((void *)dots, enzyme_dup, d_part, d_dpart, enzyme_dup, d_xd, d_dxd, enzyme_const,
                    d_yd, N);
  check_kernel("gradient of dots");
  std::vector<double> dxd(N);
  from_device(dxd, d_dxd);
  for (int i = 0; i < N; i++)
    check_close(dxd[i], seed[i / T] * yd[i], 1e-12, "d dots / dx[%d]", i);

  double *d_txd = to_device(txd), *d_dirs = device_alloc<double>(BLOCKS);
  __enzyme_fwddiff((void *)dots, enzyme_dup, d_part, d_dirs, enzyme_dup, d_xd, d_txd, enzyme_const,
                   d_yd, N);
  check_kernel("tangent of dots");
  std::vector<double> dirs(BLOCKS);
  from_device(dirs, d_dirs);
  for (int b = 0; b < BLOCKS; b++) {
    double want = 0;
    for (int i = b * T; i < (b + 1) * T && i < N; i++)
      want += txd[i] * yd[i];
    check_close(dirs[b], want, 1e-12, "tangent of block %d's dot", b);
  }

  /* Dynamic shared memory: d partial[b] / dx[i] = exp(x[i]) for i in block b
   * (the request before consumed the seed). */
  check_cuda(cudaMemset(d_dxd, 0, N * sizeof(double)), "memset");
  check_cuda(cudaMemcpy(d_dpart, seed.data(), BLOCKS * sizeof(double), cudaMemcpyHostToDevice), "copy");
  __enzyme_autodiff((void *)dynamic_sums, enzyme_dupnoneed, d_part, d_dpart, enzyme_dup, d_xd, d_dxd, N);
  check_kernel("gradient of dynamic_sums");
  from_device(dxd, d_dxd);
  for (int i = 0; i < N; i++)
    check_close(dxd[i], seed[i / T] * exp(xd[i]), 1e-12, "d dynamic_sums / dx[%d]", i);
  __enzyme_fwddiff((void *)dynamic_sums, enzyme_dup, d_part, d_dirs, enzyme_dup, d_xd, d_txd, N);
  check_kernel("tangent of dynamic_sums");
  from_device(dirs, d_dirs);
  for (int b = 0; b < BLOCKS; b++) {
    double want = 0;
    for (int i = b * T; i < (b + 1) * T && i < N; i++)
      want += exp(xd[i]) * txd[i];
    check_close(dirs[b], want, 1e-12, "tangent of block %d's exp sum", b);
  }

  /* A device-side request through shared memory and barriers. */
  float *d_dc = device_alloc<float>(T * BLOCKS);
  check_cuda(cudaMemset(d_dc, 0, T * BLOCKS * sizeof(float)), "memset");
  cubes_gradient<<<BLOCKS - 1, T>>>(d_x, d_dc);
  check_kernel("cubes_gradient");
  std::vector<float> dc(T * BLOCKS);
  from_device(dc, d_dc);
  for (int i = 0; i < T * (BLOCKS - 1); i++)
    check_close(dc[i], 3.0 * x[i] * x[i], 1e-5, "d block cubes / dx[%d]", i);
  device_free_all();
  return check_exit();
}
