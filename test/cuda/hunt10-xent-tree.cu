// Softmax cross-entropy over the rows of a logits matrix, as a classifier's
// loss is written by hand: one block per row, the row's max and its sum of
// exponentials each through a classic shared-memory tree (halving stride,
// `if (tid < s)`, __syncthreads between levels), the row's loss added by
// thread 0 alone into a scalar with atomicAdd. The host function zeroes the
// scalar with cudaMemset, launches, copies the mean loss back and returns
// it; labels are int data passed enzyme_const. Gradient (softmax - onehot)
// / rows, checked analytically; forward mode along a direction checked
// against the gradient's dot product. After the gradient, d_loss (dup)
// holds the loss once: the reverse kernel used to run the atomicAdd into it
// again, leaving twice the loss.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
// RUN: not grep -E "kwhy.*xent_rows" %t.O0.ptx %t.ptx

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { ROWS = 45, COLS = 200, THREADS = 64 };

__global__ void xent_rows(float *loss, const float *logits, const int *labels, int cols,
                          float scale) {
  __shared__ float red[THREADS];
  int tid = threadIdx.x;
  const float *row = logits + (size_t)blockIdx.x * cols;
  float m = -INFINITY;
  for (int j = tid; j < cols; j += blockDim.x)
    m = fmaxf(m, row[j]);
  red[tid] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      red[tid] = fmaxf(red[tid], red[tid + s]);
    __syncthreads();
  }
  float row_max = red[0];
  __syncthreads();
  float sum = 0.0f;
  for (int j = tid; j < cols; j += blockDim.x)
    sum += expf(row[j] - row_max);
  red[tid] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      red[tid] += red[tid + s];
    __syncthreads();
  }
  if (tid == 0) {
    float lse = row_max + logf(red[0]);
    atomicAdd(loss, scale * (lse - row[labels[blockIdx.x]]));
  }
}

float mean_xent(const float *logits, const int *labels, float *d_loss, int rows, int cols) {
  cudaMemset(d_loss, 0, sizeof(float));
  xent_rows<<<rows, THREADS>>>(d_loss, logits, labels, cols, 1.0f / rows);
  float loss;
  cudaMemcpy(&loss, d_loss, sizeof(float), cudaMemcpyDeviceToHost);
  return loss;
}

int main() {
  require_device();
  std::vector<float> logits(ROWS * COLS), dir(ROWS * COLS);
  std::vector<int> labels(ROWS);
  for (int r = 0; r < ROWS; r++) {
    labels[r] = (r * 37 + 11) % COLS;
    for (int j = 0; j < COLS; j++) {
      logits[r * COLS + j] = 3.0f * sinf(0.13f * j + 0.7f * r) + 0.01f * j;
      dir[r * COLS + j] = cosf(0.3f * j - 0.2f * r);
    }
  }
  float *d_logits = to_device(logits), *d_dlogits = device_alloc<float>(ROWS * COLS);
  float *d_dir = to_device(dir);
  int *d_labels = to_device(labels);
  float *d_loss = device_alloc<float>(1), *d_dloss = device_alloc<float>(1);
  check_cuda(cudaMemset(d_dlogits, 0, ROWS * COLS * sizeof(float)), "memset");
  check_cuda(cudaMemset(d_dloss, 0, sizeof(float)), "memset");
  __enzyme_autodiff((void *)mean_xent, enzyme_dup, d_logits, d_dlogits, enzyme_const, d_labels,
                    enzyme_dup, d_loss, d_dloss, enzyme_const, ROWS, enzyme_const, COLS);
  check_kernel("gradient of mean_xent");
  std::vector<float> grad(ROWS * COLS);
  from_device(grad, d_dlogits);
  float loss_after_gradient;
  check_cuda(cudaMemcpy(&loss_after_gradient, d_loss, sizeof(float), cudaMemcpyDeviceToHost), "copy");
  check_cuda(cudaMemset(d_dloss, 0, sizeof(float)), "memset");
  double tangent = __enzyme_fwddiff((void *)mean_xent, enzyme_dup, d_logits, d_dir,
                                   enzyme_const, d_labels, enzyme_dup, d_loss, d_dloss,
                                   enzyme_const, ROWS, enzyme_const, COLS);
  check_kernel("tangent of mean_xent");
  double loss = 0, directional = 0;
  for (int r = 0; r < ROWS; r++) {
    const float *row = &logits[r * COLS];
    double m = -INFINITY, z = 0;
    for (int j = 0; j < COLS; j++) m = fmax(m, row[j]);
    for (int j = 0; j < COLS; j++) z += exp(row[j] - m);
    loss += (m + log(z) - row[labels[r]]) / ROWS;
    for (int j = 0; j < COLS; j++) {
      double want = (exp(row[j] - m) / z - (j == labels[r])) / ROWS;
      directional += want * dir[r * COLS + j];
      check_within(grad[r * COLS + j], want, 1e-6, "dloss/dlogits[%d][%d]", r, j);
    }
  }
  check_close(tangent, directional, 1e-4, "tangent of the loss");
  check_close(loss_after_gradient, loss, 1e-5, "the loss in d_loss after the gradient (added once)");
  float value = mean_xent(d_logits, d_labels, d_loss, ROWS, COLS);
  check_close(value, loss, 1e-5, "loss");
  device_free_all();
  return check_exit();
}
