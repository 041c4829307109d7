// Log-sum-exp of each row of a matrix, one block per row, with the block
// reductions CUDA programmers write: a max, then a sum of exponentials, each
// through __shared__ memory with __syncthreads, the block strided over the
// row; templated on float and double, launched by a host function that is
// differentiated as a whole. The gradient of row r's value is the row's
// softmax; forward mode along v gives sum_j softmax_j v_j.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
// RUN: not grep -E "kwhy.*row_logsumexp" %t.O0.ptx %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
//
// CHECK-LABEL: .entry __kinase_krev_{{[a-z]+}}__Z13row_logsumexpIfEvPT_PKS0_i(
// CHECK: bar.sync 0;
// CHECK: atom.shared.add.f32

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

enum { ROWS = 37, COLS = 300, THREADS = 128 };

template <class T> __global__ void row_logsumexp(T *out, const T *x, int cols) {
  __shared__ T part[THREADS];
  const T *row = x + (size_t)blockIdx.x * cols;
  int t = threadIdx.x;
  T m = -INFINITY;
  for (int j = t; j < cols; j += blockDim.x)
    m = fmax(m, row[j]);
  part[t] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s)
      part[t] = fmax(part[t], part[t + s]);
    __syncthreads();
  }
  T top = part[0];
  __syncthreads();
  T sum = 0;
  for (int j = t; j < cols; j += blockDim.x)
    sum += exp(row[j] - top);
  part[t] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s)
      part[t] += part[t + s];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = top + log(part[0]);
}

template <class T> void logsumexp_rows(T *out, const T *x, int rows, int cols) {
  row_logsumexp<T><<<rows, THREADS>>>(out, x, cols);
}

template <class T> static void check_type(const char *type, double rtol) {
  static T x[ROWS * COLS], grad[ROWS * COLS], v[ROWS * COLS], ones[ROWS], tangent[ROWS];
  for (int k = 0; k < ROWS * COLS; k++) {
    x[k] = (T)(3.0 * sin(0.37 * k) + 0.01 * (k % 7));
    v[k] = (T)cos(0.11 * k);
  }
  for (int r = 0; r < ROWS; r++)
    ones[r] = 1;
  T *d_x = to_device(x), *d_dx = device_alloc<T>(ROWS * COLS), *d_out = device_alloc<T>(ROWS);
  T *d_dout = to_device(ones), *d_v = to_device(v), *d_tout = device_alloc<T>(ROWS);
  check_cuda(cudaMemset(d_dx, 0, sizeof x), "cudaMemset");
  __enzyme_autodiff((void *)logsumexp_rows<T>, enzyme_dupnoneed, d_out, d_dout, enzyme_dup, d_x, d_dx, ROWS, COLS);
  check_kernel("reverse");
  from_device(grad, d_dx);
  __enzyme_fwddiff((void *)logsumexp_rows<T>, enzyme_dup, d_out, d_tout, enzyme_dup, d_x, d_v, ROWS, COLS);
  check_kernel("forward");
  from_device(tangent, d_tout);
  device_free_all();
  for (int r = 0; r < ROWS; r++) {
    double top = -INFINITY, sum = 0, along = 0;
    for (int j = 0; j < COLS; j++)
      top = fmax(top, (double)x[r * COLS + j]);
    for (int j = 0; j < COLS; j++)
      sum += exp((double)x[r * COLS + j] - top);
    for (int j = 0; j < COLS; j++) {
      double softmax = exp((double)x[r * COLS + j] - top) / sum;
      along += softmax * v[r * COLS + j];
      check_close(grad[r * COLS + j], softmax, rtol, "%s: d/dx[%d][%d]", type, r, j);
    }
    check_close(tangent[r], along, rtol, "%s: tangent[%d]", type, r);
  }
}

int main(void) {
  require_device();
  check_type<float>("float", 1e-4);
  check_type<double>("double", 1e-10);
  return check_exit();
}
