// A dense layer with tanh as CUDA programmers write it, templated on the
// type and the block size (template <typename T, int BLOCK>): one block per
// output row reduces W x through __shared__ memory, then a second kernel
// sums y^2 into a scalar with atomicAdd (float and double). Launched from a
// templated host function, float and double instantiations:
//   L = sum_j tanh(z_j)^2, z_j = b_j + sum_k W_jk x_k, g_j = 2 t_j (1 - t_j^2),
//   dL/db_j = g_j, dL/dW_jk = g_j x_k, dL/dx_k = sum_j g_j W_jk.
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
// Both instantiations get reverse kernels; the double atomicAdd's too.
// CHECK-DAG: .entry __kinase_krev_{{[a-z]+}}__Z10dense_tanhIfLi128EEvPKT_S2_S2_PS0_ii(
// CHECK-DAG: .entry __kinase_krev_{{[a-z]+}}__Z10dense_tanhIdLi128EEvPKT_S2_S2_PS0_ii(
// CHECK-DAG: .entry __kinase_krev_{{[a-z]+}}__Z11sum_squaresIdEvPKT_PS0_i(
#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

template <typename T, int BLOCK>
__global__ void dense_tanh(const T *__restrict__ W, const T *__restrict__ b, const T *__restrict__ x, T *y,
                           int in, int out) {
  __shared__ T partial[BLOCK];
  int j = blockIdx.x;
  T acc = 0;
  for (int k = threadIdx.x; k < in; k += BLOCK)
    acc += W[j * in + k] * x[k];
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    y[j] = tanh(partial[0] + b[j]);
}

template <typename T> __global__ void sum_squares(const T *y, T *loss, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(loss, y[i] * y[i]);
}

template <typename T> void forward(const T *W, const T *b, const T *x, T *y, T *loss, int in, int out) {
  dense_tanh<T, 128><<<out, 128>>>(W, b, x, y, in, out);
  sum_squares<T><<<(out + 63) / 64, 64>>>(y, loss, out);
}

template <typename T> void check_gradient(double tol) {
  const int IN = 300, OUT = 40;
  std::vector<T> W(IN * OUT), b(OUT), x(IN), zW(IN * OUT), zb(OUT), zx(IN), zy(OUT), one(1, 1), zero(1, 0);
  for (int i = 0; i < IN * OUT; i++)
    W[i] = (T)(0.05 * sin(0.37 * i));
  for (int j = 0; j < OUT; j++)
    b[j] = (T)(0.1 * cos(0.5 * j));
  for (int k = 0; k < IN; k++)
    x[k] = (T)(0.5 * sin(0.11 * k) + 0.2);
  T *d_W = to_device(W), *d_b = to_device(b), *d_x = to_device(x);
  T *g_W = to_device(zW), *g_b = to_device(zb), *g_x = to_device(zx);
  T *d_y = device_alloc<T>(OUT), *g_y = to_device(zy), *d_loss = to_device(zero), *g_loss = to_device(one);
  __enzyme_autodiff((void *)forward<T>, enzyme_dup, d_W, g_W, enzyme_dup, d_b, g_b, enzyme_dup, d_x, g_x,
                    enzyme_dup, d_y, g_y, enzyme_dup, d_loss, g_loss, enzyme_const, IN, enzyme_const, OUT);
  check_kernel("forward reverse");
  std::vector<T> hW(IN * OUT), hb(OUT), hx(IN);
  from_device(hW, g_W);
  from_device(hb, g_b);
  from_device(hx, g_x);
  std::vector<double> want_x(IN, 0.0);
  for (int j = 0; j < OUT; j++) {
    double z = b[j];
    for (int k = 0; k < IN; k++)
      z += (double)W[j * IN + k] * x[k];
    double t = tanh(z), g = 2 * t * (1 - t * t);
    check_close(hb[j], g, tol, "db[%d] (%zu-byte floats)", j, sizeof(T));
    for (int k = 0; k < IN; k++) {
      check_close(hW[j * IN + k], g * x[k], tol, "dW[%d][%d] (%zu-byte floats)", j, k, sizeof(T));
      want_x[k] += g * W[j * IN + k];
    }
  }
  for (int k = 0; k < IN; k++)
    check_close(hx[k], want_x[k], tol, "dx[%d] (%zu-byte floats)", k, sizeof(T));
}

int main(void) {
  require_device();
  check_gradient<float>(1e-4);
  check_gradient<double>(1e-10);
  device_free_all();
  return check_exit();
}
