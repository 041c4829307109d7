// One hidden layer of an MLP trained by hand-written CUDA: H = tanh(X W^T +
// b) by a tiled matmul (16x16 tiles of X and W staged in __shared__ memory,
// a 2-D grid over batch x hidden units, zero padding at the edges), then a
// second kernel computes the squared error of H against targets with a
// warp __shfl_down_sync reduction and one atomicAdd per warp. The host
// function allocates the activations with cudaMalloc, launches both,
// copies the loss back, frees, and returns it. X and the targets are
// enzyme_const, W and b enzyme_dup; gradients against the analytic
// backpropagation on the host.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
// RUN: not grep -E "kwhy.*(dense_tanh|sq_error)" %t.O0.ptx %t.ptx

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

#define TILE 16
enum { BATCH = 50, IN = 37, HID = 29 };

// H[r][c] = tanh(b[c] + sum_k X[r][k] W[c][k])
__global__ void dense_tanh(float *H, const float *X, const float *W, const float *b, int batch,
                           int in, int hid) {
  __shared__ float xs[TILE][TILE];
  __shared__ float ws[TILE][TILE + 1];
  int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < in; t += TILE) {
    int kx = t + threadIdx.x, wrow = blockIdx.x * TILE + threadIdx.y;
    xs[threadIdx.y][threadIdx.x] = (r < batch && kx < in) ? X[r * in + kx] : 0.0f;
    ws[threadIdx.y][threadIdx.x] = (wrow < hid && kx < in) ? W[wrow * in + kx] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; k++)
      acc += xs[threadIdx.y][k] * ws[threadIdx.x][k];
    __syncthreads();
  }
  if (r < batch && c < hid)
    H[r * hid + c] = tanhf(acc + b[c]);
}

__global__ void sq_error(float *loss, const float *H, const float *T, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float e = 0.0f;
  if (i < n) {
    float d = H[i] - T[i];
    e = 0.5f * d * d;
  }
  for (int off = 16; off > 0; off >>= 1)
    e += __shfl_down_sync(0xffffffffu, e, off);
  if ((threadIdx.x & 31) == 0)
    atomicAdd(loss, e);
}

float layer_loss(const float *X, const float *W, const float *b, const float *T, int batch,
                 int in, int hid) {
  float *H, *d_loss;
  cudaMalloc(&H, batch * hid * sizeof(float));
  cudaMalloc(&d_loss, sizeof(float));
  cudaMemset(d_loss, 0, sizeof(float));
  dim3 block(TILE, TILE), grid((hid + TILE - 1) / TILE, (batch + TILE - 1) / TILE);
  dense_tanh<<<grid, block>>>(H, X, W, b, batch, in, hid);
  int n = batch * hid;
  sq_error<<<(n + 127) / 128, 128>>>(d_loss, H, T, n);
  float loss = 0;
  cudaMemcpy(&loss, d_loss, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(H);
  cudaFree(d_loss);
  return loss;
}

int main() {
  require_device();
  std::vector<float> X(BATCH * IN), W(HID * IN), b(HID), T(BATCH * HID);
  for (int i = 0; i < BATCH * IN; i++) X[i] = sinf(0.7f * i) * 0.8f;
  for (int i = 0; i < HID * IN; i++) W[i] = 0.3f * cosf(1.3f * i + 0.1f);
  for (int i = 0; i < HID; i++) b[i] = 0.1f * i - 1.0f;
  for (int i = 0; i < BATCH * HID; i++) T[i] = 0.5f * sinf(0.21f * i);
  float *d_X = to_device(X), *d_W = to_device(W), *d_b = to_device(b), *d_T = to_device(T);
  float *d_dW = device_alloc<float>(HID * IN), *d_db = device_alloc<float>(HID);
  check_cuda(cudaMemset(d_dW, 0, HID * IN * sizeof(float)), "memset");
  check_cuda(cudaMemset(d_db, 0, HID * sizeof(float)), "memset");
  __enzyme_autodiff((void *)layer_loss, enzyme_const, d_X, enzyme_dup, d_W, d_dW, enzyme_dup, d_b,
                    d_db, enzyme_const, d_T, enzyme_const, BATCH, enzyme_const, IN,
                    enzyme_const, HID);
  check_kernel("gradient of layer_loss");
  std::vector<float> dW(HID * IN), db(HID);
  from_device(dW, d_dW);
  from_device(db, d_db);
  std::vector<double> gW(HID * IN, 0.0), gb(HID, 0.0);
  double loss = 0;
  for (int r = 0; r < BATCH; r++)
    for (int c = 0; c < HID; c++) {
      double z = b[c];
      for (int k = 0; k < IN; k++) z += (double)X[r * IN + k] * W[c * IN + k];
      double h = tanh(z), d = h - T[r * HID + c];
      loss += 0.5 * d * d;
      double g = d * (1 - h * h);
      gb[c] += g;
      for (int k = 0; k < IN; k++) gW[c * IN + k] += g * X[r * IN + k];
    }
  for (int i = 0; i < HID * IN; i++) check_close(dW[i], gW[i], 1e-4, "dW[%d]", i);
  for (int i = 0; i < HID; i++) check_close(db[i], gb[i], 1e-4, "db[%d]", i);
  float value = layer_loss(d_X, d_W, d_b, d_T, BATCH, IN, HID);
  check_close(value, loss, 1e-4, "loss");
  device_free_all();
  return check_exit();
}
