// y = A x with the vector staged in __shared__ tiles, a 2-D grid of 2-D
// blocks (blockIdx.y picks a slab of rows, threadIdx.y splits the tile's
// columns, the partial sums of a row met in shared memory), double
// precision, launched by a host function differentiated as a whole, reverse
// and forward mode: with the output's adjoint c, the gradients are A^T c and
// c x^T; forward along (dA, dx) gives dA x + A dx.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
// RUN: not grep -E "kwhy.*matvec" %t.O0.ptx %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
//
// CHECK-LABEL: .entry __kinase_krev_{{[a-z]+}}__Z6matvecPdPKdS1_ii(
// CHECK: bar.sync 0;
// CHECK: atom.shared.add.f64

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

enum { M = 150, N = 97, TILE = 32, SPLIT = 4 };

__global__ void matvec(double *y, const double *A, const double *x, int m, int n) {
  __shared__ double xs[TILE];
  __shared__ double partial[SPLIT][TILE];
  int row = blockIdx.y * TILE + threadIdx.x;
  double acc = 0;
  for (int base = 0; base < n; base += TILE) {
    if (threadIdx.y == 0)
      xs[threadIdx.x] = base + threadIdx.x < n ? x[base + threadIdx.x] : 0.0;
    __syncthreads();
    for (int k = threadIdx.y; k < TILE; k += SPLIT)
      if (row < m && base + k < n)
        acc += A[(size_t)row * n + base + k] * xs[k];
    __syncthreads();
  }
  partial[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y == 0 && row < m) {
    double sum = 0;
    for (int s = 0; s < SPLIT; s++)
      sum += partial[s][threadIdx.x];
    y[row] = sum;
  }
}

void apply(double *y, const double *A, const double *x, int m, int n) {
  dim3 grid(1, (m + TILE - 1) / TILE), block(TILE, SPLIT);
  matvec<<<grid, block>>>(y, A, x, m, n);
}

int main(void) {
  require_device();
  static double A[M * N], x[N], c[M], dA[M * N], dx[N], tA[M * N], tx[N], ty[M];
  for (int k = 0; k < M * N; k++) {
    A[k] = sin(0.13 * k) + 0.1;
    tA[k] = cos(0.07 * k);
  }
  for (int j = 0; j < N; j++) {
    x[j] = 0.5 + 0.3 * cos(0.5 * j);
    tx[j] = sin(0.9 * j);
  }
  for (int i = 0; i < M; i++)
    c[i] = 1.0 + 0.01 * i;
  double *d_A = to_device(A), *d_x = to_device(x), *d_c = to_device(c), *d_y = device_alloc<double>(M);
  double *d_dA = device_alloc<double>(M * N), *d_dx = device_alloc<double>(N);
  double *d_tA = to_device(tA), *d_tx = to_device(tx), *d_ty = device_alloc<double>(M);
  check_cuda(cudaMemset(d_dA, 0, sizeof dA), "cudaMemset");
  check_cuda(cudaMemset(d_dx, 0, sizeof dx), "cudaMemset");
  __enzyme_autodiff((void *)apply, enzyme_dupnoneed, d_y, d_c, enzyme_dup, d_A, d_dA, enzyme_dup, d_x, d_dx, M, N);
  check_kernel("reverse");
  __enzyme_fwddiff((void *)apply, enzyme_dup, d_y, d_ty, enzyme_dup, d_A, d_tA, enzyme_dup, d_x, d_tx, M, N);
  check_kernel("forward");
  from_device(dA, d_dA);
  from_device(dx, d_dx);
  from_device(ty, d_ty);
  device_free_all();
  for (int j = 0; j < N; j++) {
    double want = 0;
    for (int i = 0; i < M; i++)
      want += A[i * N + j] * c[i];
    check_close(dx[j], want, 1e-12, "d/dx[%d]", j);
  }
  for (int i = 0; i < M; i++) {
    double want = 0;
    for (int j = 0; j < N; j++) {
      check_close(dA[i * N + j], c[i] * x[j], 1e-12, "d/dA[%d][%d]", i, j);
      want += tA[i * N + j] * x[j] + A[i * N + j] * tx[j];
    }
    check_close(ty[i], want, 1e-12, "tangent[%d]", i);
  }
  return check_exit();
}
