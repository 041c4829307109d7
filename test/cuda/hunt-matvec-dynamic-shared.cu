// Least squares through a matrix-vector product in double: one block per
// row sums its products in dynamic shared memory (a tree with barriers,
// __launch_bounds__, __restrict__, #pragma unroll), a second kernel adds
// each row's squared residual with atomicAdd on a double, and the host
// copies the loss back; the matrix and the vector are dup, the target
// Const. dA = r x^T, dx = A^T r against the host's own product.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The reverse kernel waits at the barriers of the tree.
// CHECK-LABEL: .entry __kinase_krev_{{[a-z]+}}__Z6matvecILi128EEvPKdS1_Pdi(
// CHECK: bar.sync 0;

#include "cuda_check.h"
#include <kinase.h>
#include <vector>
template <typename T> T __enzyme_autodiff(void *, ...);
// y = A x (A rows x cols, row-major), one block per row, dynamic shared partial
// sums.
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    matvec(const double *__restrict__ A, const double *__restrict__ x,
           double *__restrict__ y, int cols) {
  extern __shared__ double partial[];
  int row = blockIdx.x;
  double s = 0;
#pragma unroll 4
  for (int c = threadIdx.x; c < cols; c += BLOCK)
    s += A[(size_t)row * cols + c] * x[c];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    y[row] = partial[0];
}
__global__ void sq_loss(const double *y, const double *target, double *loss,
                        int rows) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows) {
    double d = y[i] - target[i];
    atomicAdd(loss, 0.5 * d * d);
  }
}
double loss_fn(const double *A, const double *x, const double *target, int rows,
               int cols) {
  double *y, *loss, h = 0;
  cudaMalloc(&y, rows * sizeof(double));
  cudaMalloc(&loss, sizeof(double));
  cudaMemset(loss, 0, sizeof(double));
  matvec<128><<<rows, 128, 128 * sizeof(double)>>>(A, x, y, cols);
  sq_loss<<<(rows + 63) / 64, 64>>>(y, target, loss, rows);
  cudaMemcpy(&h, loss, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(y);
  cudaFree(loss);
  return h;
}
int main() {
  require_device();
  const int rows = 50, cols = 300;
  std::vector<double> A(rows * cols), x(cols), t(rows), dA(rows * cols),
      dx(cols);
  for (int i = 0; i < rows * cols; i++)
    A[i] = sin(0.001 * i) * 0.1;
  for (int c = 0; c < cols; c++)
    x[c] = cos(0.01 * c);
  for (int r = 0; r < rows; r++)
    t[r] = 0.1 * r - 1.0;
  double *d_A = to_device(A), *d_dA = device_alloc<double>(rows * cols),
         *d_x = to_device(x), *d_dx = device_alloc<double>(cols),
         *d_t = to_device(t);
  __enzyme_autodiff<void>((void *)loss_fn, enzyme_dup, d_A, d_dA, enzyme_dup,
                          d_x, d_dx, enzyme_const, d_t, enzyme_const, rows,
                          enzyme_const, cols);
  check_kernel("gradient");
  from_device(dA, d_dA);
  from_device(dx, d_dx);
  std::vector<double> r(rows), wantx(cols, 0.0);
  for (int i = 0; i < rows; i++) {
    double y = 0;
    for (int c = 0; c < cols; c++)
      y += A[i * cols + c] * x[c];
    r[i] = y - t[i];
  }
  for (int i = 0; i < rows; i++)
    for (int c = 0; c < cols; c++) {
      check_close(dA[i * cols + c], r[i] * x[c], 1e-9, "dA[%d][%d]", i, c);
      wantx[c] += r[i] * A[i * cols + c];
    }
  for (int c = 0; c < cols; c++)
    check_close(dx[c], wantx[c], 1e-9, "dx[%d]", c);
  device_free_all();
  return check_exit();
}
