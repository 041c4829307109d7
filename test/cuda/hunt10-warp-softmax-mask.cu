// Masked attention weights, one warp per row (a row of 64 scores, two per
// lane): the row max and the sum of exponentials by __shfl_xor_sync
// butterflies (every lane ends with the total), the number of unmasked
// entries by __reduce_add_sync over the lanes' integer counts (inactive,
// it only rescales), and the masked softmax written back. The host
// function launches through cudaLaunchKernel with an argument array,
// copies the probabilities to a std::vector and returns sum_ij c_ij p_ij
// times the count of unmasked entries in the row. Reverse mode against the
// analytic Jacobian-vector product p * (c - <c, p>) * count; forward mode
// against the gradient's dot product with a direction.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
// RUN: not grep -E "kwhy.*masked_softmax" %t.O0.ptx %t.ptx

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { ROWS = 24, COLS = 64, WARPS_PER_BLOCK = 4 };

__global__ void masked_softmax(float *p, float *count, const float *scores,
                               const unsigned char *mask, int rows) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
  if (warp >= rows)
    return;
  const float *s = scores + warp * COLS;
  const unsigned char *m = mask + warp * COLS;
  float a = m[lane] ? s[lane] : -INFINITY, b = m[lane + 32] ? s[lane + 32] : -INFINITY;
  float mx = fmaxf(a, b);
  for (int off = 16; off > 0; off /= 2)
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
  float ea = m[lane] ? expf(a - mx) : 0.0f, eb = m[lane + 32] ? expf(b - mx) : 0.0f;
  float sum = ea + eb;
  for (int off = 16; off > 0; off /= 2)
    sum += __shfl_xor_sync(0xffffffffu, sum, off);
  unsigned valid = __reduce_add_sync(0xffffffffu, (unsigned)(m[lane] != 0) + (m[lane + 32] != 0));
  float inv = 1.0f / sum;
  p[warp * COLS + lane] = ea * inv;
  p[warp * COLS + lane + 32] = eb * inv;
  if (lane == 0)
    count[warp] = (float)valid;
}

float attention_score(const float *scores, const unsigned char *mask, float *probs,
                      const float *c, int rows) {
  float *d_count;
  cudaMalloc(&d_count, rows * sizeof(float));
  void *args[] = {&probs, &d_count, &scores, &mask, &rows};
  int threads = 32 * WARPS_PER_BLOCK;
  cudaLaunchKernel((const void *)masked_softmax, dim3((rows * 32 + threads - 1) / threads),
                   dim3(threads), args, 0, 0);
  std::vector<float> p(rows * COLS), count(rows);
  cudaMemcpy(p.data(), probs, rows * COLS * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(count.data(), d_count, rows * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d_count);
  float total = 0;
  for (int r = 0; r < rows; r++)
    for (int j = 0; j < COLS; j++)
      total += c[r * COLS + j] * p[r * COLS + j] * count[r];
  return total;
}

int main() {
  require_device();
  std::vector<float> scores(ROWS * COLS), c(ROWS * COLS), dir(ROWS * COLS);
  std::vector<unsigned char> mask(ROWS * COLS);
  for (int i = 0; i < ROWS * COLS; i++) {
    scores[i] = 2.0f * sinf(0.37f * i) + 0.5f * cosf(0.11f * i);
    c[i] = cosf(0.19f * i);
    dir[i] = sinf(0.05f * i + 1.0f);
    mask[i] = (i * 7 + i / COLS) % 5 != 0 || i % COLS == 3;
  }
  float *d_scores = to_device(scores), *d_dscores = device_alloc<float>(ROWS * COLS);
  float *d_dir = to_device(dir);
  unsigned char *d_mask = to_device(mask);
  float *d_p = device_alloc<float>(ROWS * COLS), *d_dp = device_alloc<float>(ROWS * COLS);
  check_cuda(cudaMemset(d_dscores, 0, ROWS * COLS * sizeof(float)), "memset");
  check_cuda(cudaMemset(d_dp, 0, ROWS * COLS * sizeof(float)), "memset");
  __enzyme_autodiff((void *)attention_score, enzyme_dup, d_scores, d_dscores, enzyme_const, d_mask,
                    enzyme_dup, d_p, d_dp, enzyme_const, c.data(), enzyme_const, ROWS);
  check_kernel("gradient of attention_score");
  std::vector<float> grad(ROWS * COLS);
  from_device(grad, d_dscores);
  check_cuda(cudaMemset(d_dp, 0, ROWS * COLS * sizeof(float)), "memset");
  double tangent = __enzyme_fwddiff((void *)attention_score, enzyme_dup, d_scores, d_dir,
                                    enzyme_const, d_mask, enzyme_dup, d_p, d_dp, enzyme_const,
                                    c.data(), enzyme_const, ROWS);
  check_kernel("tangent of attention_score");
  double directional = 0;
  for (int r = 0; r < ROWS; r++) {
    double mx = -INFINITY, z = 0, cp = 0;
    int n = 0;
    for (int j = 0; j < COLS; j++)
      if (mask[r * COLS + j]) { mx = fmax(mx, scores[r * COLS + j]); n++; }
    std::vector<double> p(COLS, 0.0);
    for (int j = 0; j < COLS; j++)
      if (mask[r * COLS + j]) z += exp(scores[r * COLS + j] - mx);
    for (int j = 0; j < COLS; j++) {
      if (mask[r * COLS + j]) p[j] = exp(scores[r * COLS + j] - mx) / z;
      cp += p[j] * c[r * COLS + j];
    }
    for (int j = 0; j < COLS; j++) {
      double want = n * p[j] * (c[r * COLS + j] - cp);
      directional += want * dir[r * COLS + j];
      check_within(grad[r * COLS + j], want, 1e-4, "d/dscores[%d][%d]", r, j);
    }
  }
  check_close(tangent, directional, 1e-3, "tangent");
  device_free_all();
  return check_exit();
}
