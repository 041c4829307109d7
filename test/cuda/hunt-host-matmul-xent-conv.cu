// Kernels as CUDA programmers write them, launched from differentiated host
// functions, checked against analytic gradients:
//   matmul: shared-memory tiles on a 2-D grid, __restrict__, #pragma unroll,
//           sizes no multiple of the tile; C = A B seeded with W:
//           dA = W B^T, dB = A^T W; forward: dC = tA B + A tB
//   xent:   softmax cross-entropy, one block per row (template on the block
//           size), max and sum block reductions in shared memory, the loss
//           summed with atomicAdd: dlogits = softmax - onehot(label)
//   conv1d: a halo in dynamic shared memory: out_g = sum_k w_k in_{g+k-R}
//           seeded with W: din_j = sum_k w_k W_{j-k+R}, dw_k = sum_g W_g in_{g+k-R}
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
// CHECK-NOT: __kinase_kwhy_
// CHECK-DAG: .entry __kinase_krev_ddn__Z6matmulPKfS0_Pfiii(
// CHECK-DAG: .entry __kinase_krev_dcn__Z12softmax_xentILi128EEvPKfPKiPfi(
// CHECK-DAG: .entry __kinase_krev_{{[dc]+}}n__Z6conv1dPKfS0_Pfii(

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

#define TILE 16

__global__ void matmul(const float *__restrict__ A, const float *__restrict__ B,
                       float *__restrict__ C, int M, int N, int K) {
  __shared__ float As[TILE][TILE], Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (K + TILE - 1) / TILE; t++) {
    int ac = t * TILE + threadIdx.x, br = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = row < M && ac < K ? A[row * K + ac] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = br < K && col < N ? B[br * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; k++)
      acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N)
    C[row * N + col] = acc;
}

void run_matmul(const float *A, const float *B, float *C, int M, int N, int K) {
  dim3 block(TILE, TILE), grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  matmul<<<grid, block>>>(A, B, C, M, N, K);
}

template <int BLOCK>
__global__ void softmax_xent(const float *logits, const int *labels, float *loss, int C) {
  __shared__ float red[BLOCK];
  const float *x = logits + blockIdx.x * C;
  float m = -INFINITY;
  for (int j = threadIdx.x; j < C; j += BLOCK)
    m = fmaxf(m, x[j]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float sum = 0.0f;
  for (int j = threadIdx.x; j < C; j += BLOCK)
    sum += expf(x[j] - m);
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(loss, logf(red[0]) + m - x[labels[blockIdx.x]]);
}

void run_xent(const float *logits, const int *labels, float *loss, int rows, int C) {
  softmax_xent<128><<<rows, 128>>>(logits, labels, loss, C);
}

__global__ void conv1d(const float *in, const float *w, float *out, int n, int R) {
  extern __shared__ float tile[];
  int g = blockIdx.x * blockDim.x + threadIdx.x, l = threadIdx.x + R;
  tile[l] = g < n ? in[g] : 0.0f;
  if (threadIdx.x < R) {
    int left = g - R, right = g + blockDim.x;
    tile[threadIdx.x] = left >= 0 ? in[left] : 0.0f;
    tile[l + blockDim.x] = right < n ? in[right] : 0.0f;
  }
  __syncthreads();
  if (g < n) {
    float s = 0.0f;
    for (int k = -R; k <= R; k++)
      s += w[k + R] * tile[l + k];
    out[g] = s;
  }
}

void run_conv(const float *in, const float *w, float *out, int n, int R) {
  int threads = 128;
  conv1d<<<(n + threads - 1) / threads, threads, (threads + 2 * R) * sizeof(float)>>>(in, w, out, n, R);
}

static std::vector<float> wave(int n, double a, double b) {
  std::vector<float> v(n);
  for (int i = 0; i < n; i++)
    v[i] = (float)(a * sin(b * i + 0.3));
  return v;
}

static void check_matmul(void) {
  const int M = 37, N = 29, K = 45;
  std::vector<float> A = wave(M * K, 1.0, 0.37), B = wave(K * N, 0.8, 0.23);
  std::vector<float> W = wave(M * N, 1.0, 0.11), zA(M * K, 0.0f), zB(K * N, 0.0f);
  float *d_A = to_device(A), *d_B = to_device(B), *d_C = device_alloc<float>(M * N);
  float *d_dA = to_device(zA), *d_dB = to_device(zB), *d_W = to_device(W);
  __enzyme_autodiff((void *)run_matmul, enzyme_dup, d_A, d_dA, enzyme_dup, d_B, d_dB,
                    enzyme_dupnoneed, d_C, d_W, enzyme_const, M, enzyme_const, N, enzyme_const, K);
  check_kernel("matmul reverse");
  std::vector<float> dA(M * K), dB(K * N);
  from_device(dA, d_dA);
  from_device(dB, d_dB);
  for (int i = 0; i < M; i++)
    for (int k = 0; k < K; k++) {
      double want = 0;
      for (int j = 0; j < N; j++)
        want += (double)W[i * N + j] * B[k * N + j];
      check_close(dA[i * K + k], want, 1e-4, "matmul dA[%d][%d]", i, k);
    }
  for (int k = 0; k < K; k++)
    for (int j = 0; j < N; j++) {
      double want = 0;
      for (int i = 0; i < M; i++)
        want += (double)A[i * K + k] * W[i * N + j];
      check_close(dB[k * N + j], want, 1e-4, "matmul dB[%d][%d]", k, j);
    }
  std::vector<float> tA = wave(M * K, 0.5, 0.71), tB = wave(K * N, 0.5, 0.53);
  float *d_tA = to_device(tA), *d_tB = to_device(tB), *d_tC = device_alloc<float>(M * N);
  __enzyme_fwddiff((void *)run_matmul, enzyme_dup, d_A, d_tA, enzyme_dup, d_B, d_tB, enzyme_dup,
                   d_C, d_tC, enzyme_const, M, enzyme_const, N, enzyme_const, K);
  check_kernel("matmul forward");
  std::vector<float> tC(M * N);
  from_device(tC, d_tC);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double want = 0;
      for (int k = 0; k < K; k++)
        want += (double)tA[i * K + k] * B[k * N + j] + (double)A[i * K + k] * tB[k * N + j];
      check_close(tC[i * N + j], want, 1e-4, "matmul tangent[%d][%d]", i, j);
    }
}

static void check_xent(void) {
  const int rows = 5, C = 300;
  std::vector<float> x = wave(rows * C, 3.0, 0.17), zero(rows * C, 0.0f), one(1, 1.0f);
  std::vector<int> labels = {3, 150, 299, 0, 77};
  float *d_x = to_device(x), *d_dx = to_device(zero), *d_loss = device_alloc<float>(1);
  float *d_dloss = to_device(one);
  int *d_labels = to_device(labels);
  __enzyme_autodiff((void *)run_xent, enzyme_dup, d_x, d_dx, enzyme_const, d_labels,
                    enzyme_dupnoneed, d_loss, d_dloss, enzyme_const, rows, enzyme_const, C);
  check_kernel("xent reverse");
  std::vector<float> dx(rows * C);
  from_device(dx, d_dx);
  for (int r = 0; r < rows; r++) {
    double m = -INFINITY, sum = 0;
    for (int j = 0; j < C; j++)
      m = fmax(m, x[r * C + j]);
    for (int j = 0; j < C; j++)
      sum += exp(x[r * C + j] - m);
    for (int j = 0; j < C; j++) {
      double want = exp(x[r * C + j] - m) / sum - (j == labels[r]);
      check_close(dx[r * C + j], want, 1e-5, "xent dlogits[%d][%d]", r, j);
    }
  }
}

static void check_conv(void) {
  const int n = 1000, R = 3;
  std::vector<float> in = wave(n, 1.0, 0.05), w = wave(2 * R + 1, 0.5, 1.1), W = wave(n, 1.0, 0.013);
  std::vector<float> zin(n, 0.0f), zw(2 * R + 1, 0.0f);
  float *d_in = to_device(in), *d_w = to_device(w), *d_out = device_alloc<float>(n);
  float *d_din = to_device(zin), *d_dw = to_device(zw), *d_W = to_device(W);
  __enzyme_autodiff((void *)run_conv, enzyme_dup, d_in, d_din, enzyme_dup, d_w, d_dw,
                    enzyme_dupnoneed, d_out, d_W, enzyme_const, n, enzyme_const, R);
  check_kernel("conv reverse");
  std::vector<float> din(n), dw(2 * R + 1);
  from_device(din, d_din);
  from_device(dw, d_dw);
  for (int j = 0; j < n; j++) {
    double want = 0;
    for (int k = -R; k <= R; k++)
      if (j - k >= 0 && j - k < n)
        want += (double)w[k + R] * W[j - k];
    check_close(din[j], want, 1e-5, "conv din[%d]", j);
  }
  for (int k = -R; k <= R; k++) {
    double want = 0;
    for (int g = 0; g < n; g++)
      if (g + k >= 0 && g + k < n)
        want += (double)W[g] * in[g + k];
    check_close(dw[k + R], want, 1e-4, "conv dw[%d]", k + R);
  }
  std::vector<float> tin = wave(n, 0.5, 0.29), tw = wave(2 * R + 1, 1.0, 0.7);
  float *d_tin = to_device(tin), *d_tw = to_device(tw), *d_tout = device_alloc<float>(n);
  __enzyme_fwddiff((void *)run_conv, enzyme_dup, d_in, d_tin, enzyme_dup, d_w, d_tw, enzyme_dup,
                   d_out, d_tout, enzyme_const, n, enzyme_const, R);
  check_kernel("conv forward");
  std::vector<float> tout(n);
  from_device(tout, d_tout);
  for (int g = 0; g < n; g++) {
    double want = 0;
    for (int k = -R; k <= R; k++)
      if (g + k >= 0 && g + k < n)
        want += (double)tw[k + R] * in[g + k] + (double)w[k + R] * tin[g + k];
    check_close(tout[g], want, 1e-5, "conv tangent[%d]", g);
  }
}

int main(void) {
  require_device();
  check_matmul();
  check_xent();
  check_conv();
  device_free_all();
  return check_exit();
}
