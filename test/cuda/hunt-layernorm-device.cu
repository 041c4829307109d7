// Layer normalisation of each row, differentiated inside the kernel: one
// block per row, every thread calling __enzyme_autodiff (and
// __enzyme_fwddiff) on a __device__ function that computes the row's mean
// and variance with shared-memory block reductions and returns its own
// share of the loss sum_j w_j (x_j - mean) / sqrt(var + eps). The threads'
// shares add up to the row's loss, so their gradients add up to its
// gradient. Against central differences of the loss computed on the host
// in double.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
// RUN: FileCheck %s --input-file=%t.ptx
//
// The gradient kernel mirrors the reductions' barriers and adds into the
// shared shadows atomically.
// CHECK-LABEL: .entry _Z9gradientsPKfS0_Pfi(
// CHECK: bar.sync 0;
// CHECK: atom.shared.add.f32
// CHECK: ret;

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

enum { ROWS = 24, COLS = 200, THREADS = 64 };

__device__ float block_sum(float v, float *scratch) {
  int t = threadIdx.x;
  scratch[t] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s)
      scratch[t] += scratch[t + s];
    __syncthreads();
  }
  float total = scratch[0];
  __syncthreads();
  return total;
}

__device__ float layernorm_share(const float *row, const float *w, int cols) {
  __shared__ float scratch[THREADS];
  float s = 0;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    s += row[j];
  float mean = block_sum(s, scratch) / cols;
  float q = 0;
  for (int j = threadIdx.x; j < cols; j += blockDim.x) {
    float d = row[j] - mean;
    q += d * d;
  }
  float inv = rsqrtf(block_sum(q, scratch) / cols + 1e-5f);
  float share = 0;
  for (int j = threadIdx.x; j < cols; j += blockDim.x)
    share += w[j] * (row[j] - mean) * inv;
  return share;
}

__global__ void gradients(const float *x, const float *w, float *dx, int cols) {
  size_t r = blockIdx.x;
  __enzyme_autodiff((void *)layernorm_share, enzyme_dup, x + r * cols, dx + r * cols, enzyme_const, w,
                    enzyme_const, cols);
}

extern __device__ float __enzyme_fwddiff_f(void *, ...);

__global__ void tangents(const float *x, const float *v, const float *w, float *out, int cols) {
  __shared__ float shares[THREADS];
  size_t r = blockIdx.x;
  shares[threadIdx.x] = __enzyme_fwddiff_f((void *)layernorm_share, enzyme_dup, x + r * cols, v + r * cols,
                                           enzyme_const, w, enzyme_const, cols);
  __syncthreads();
  if (threadIdx.x == 0) {
    float sum = 0;
    for (int t = 0; t < blockDim.x; t++)
      sum += shares[t];
    out[r] = sum;
  }
}

static double row_loss(const double *row, const float *w) {
  double mean = 0, var = 0, loss = 0;
  for (int j = 0; j < COLS; j++)
    mean += row[j];
  mean /= COLS;
  for (int j = 0; j < COLS; j++)
    var += (row[j] - mean) * (row[j] - mean);
  double inv = 1 / sqrt(var / COLS + 1e-5);
  for (int j = 0; j < COLS; j++)
    loss += w[j] * (row[j] - mean) * inv;
  return loss;
}

int main(void) {
  require_device();
  static float x[ROWS * COLS], v[ROWS * COLS], w[COLS], grad[ROWS * COLS], tangent[ROWS];
  for (int k = 0; k < ROWS * COLS; k++) {
    x[k] = (float)(sin(0.3 * k) + 0.5 * cos(0.017 * k));
    v[k] = (float)cos(0.7 * k);
  }
  for (int j = 0; j < COLS; j++)
    w[j] = (float)(0.5 + 0.25 * sin(0.2 * j));
  float *d_x = to_device(x), *d_v = to_device(v), *d_w = to_device(w);
  float *d_dx = device_alloc<float>(ROWS * COLS), *d_t = device_alloc<float>(ROWS);
  check_cuda(cudaMemset(d_dx, 0, sizeof grad), "cudaMemset");
  gradients<<<ROWS, THREADS>>>(d_x, d_w, d_dx, COLS);
  check_kernel("gradients");
  tangents<<<ROWS, THREADS>>>(d_x, d_v, d_w, d_t, COLS);
  check_kernel("tangents");
  from_device(grad, d_dx);
  from_device(tangent, d_t);
  device_free_all();
  static double row[COLS];
  for (int r = 0; r < ROWS; r++) {
    double along = 0;
    for (int j = 0; j < COLS; j++)
      row[j] = x[r * COLS + j];
    for (int j = 0; j < COLS; j++) {
      const double h = 1e-5;
      row[j] += h;
      double up = row_loss(row, w);
      row[j] -= 2 * h;
      double down = row_loss(row, w);
      row[j] += h;
      double d = (up - down) / (2 * h);
      along += d * v[r * COLS + j];
      check_within(grad[r * COLS + j], d, 2e-3, "d/dx[%d][%d]", r, j);
    }
    check_within(tangent[r], along, 2e-2, "tangent of row %d", r);
  }
  return check_exit();
}
