// Groups of 8 features normalised per group (a group norm) with
// cooperative_groups as modern CUDA code writes it: thread_block_tile<8>
// from tiled_partition, the group's largest magnitude by cg::reduce with
// cg::greater, the scaled sum of squares by cg::reduce with cg::plus, then
// each lane writes y = g_k * x / ||x|| with per-feature gains g (dup). The
// host function launches on a 2-D grid (blockIdx.y picks a sample) and
// returns sum_i c_i y_i computed on the host. Gradients with respect to x
// and g against the analytic ones; forward mode along x checked against
// the gradient.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
// RUN: not grep -E "kwhy.*group_norm" %t.O0.ptx %t.ptx

#include <kinase.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

namespace cg = cooperative_groups;

enum { FEATURES = 96, SAMPLES = 10, GROUP = 8 };

__global__ void group_norm(float *y, const float *x, const float *gain, int features) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<GROUP> group = cg::tiled_partition<GROUP>(block);
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  size_t at = (size_t)blockIdx.y * features + k;
  float v = k < features ? x[at] : 0.0f;
  float biggest = cg::reduce(group, fabsf(v), cg::greater<float>());
  float scaled = v / biggest;
  float norm = biggest * sqrtf(cg::reduce(group, scaled * scaled, cg::plus<float>()));
  if (k < features)
    y[at] = gain[k] * v / norm;
}

float normed_score(const float *x, const float *gain, const float *c, int features, int samples) {
  float *y;
  size_t count = (size_t)features * samples;
  cudaMalloc(&y, count * sizeof(float));
  dim3 grid((features + 31) / 32, samples);
  group_norm<<<grid, 32>>>(y, x, gain, features);
  std::vector<float> host(count);
  cudaMemcpy(host.data(), y, count * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(y);
  float s = 0;
  for (size_t i = 0; i < count; i++)
    s += c[i] * host[i];
  return s;
}

int main() {
  require_device();
  const int count = FEATURES * SAMPLES;
  std::vector<float> x(count), c(count), tx(count), gain(FEATURES);
  for (int i = 0; i < count; i++) {
    x[i] = sinf(0.77f * i) + 0.3f * cosf(0.05f * i);
    c[i] = cosf(0.31f * i);
    tx[i] = sinf(0.11f * i + 2);
  }
  for (int k = 0; k < FEATURES; k++)
    gain[k] = 1.0f + 0.01f * k;
  float *d_x = to_device(x), *d_gain = to_device(gain), *d_tx = to_device(tx);
  float *d_dx = device_alloc<float>(count), *d_dgain = device_alloc<float>(FEATURES);
  float *d_tgain = device_alloc<float>(FEATURES);
  check_cuda(cudaMemset(d_dx, 0, count * sizeof(float)), "memset");
  check_cuda(cudaMemset(d_dgain, 0, FEATURES * sizeof(float)), "memset");
  check_cuda(cudaMemset(d_tgain, 0, FEATURES * sizeof(float)), "memset");
  __enzyme_autodiff((void *)normed_score, enzyme_dup, d_x, d_dx, enzyme_dup, d_gain, d_dgain,
                    enzyme_const, c.data(), enzyme_const, FEATURES, enzyme_const, SAMPLES);
  check_kernel("gradient of normed_score");
  double tangent = __enzyme_fwddiff((void *)normed_score, enzyme_dup, d_x, d_tx, enzyme_dup,
                                    d_gain, d_tgain, enzyme_const, c.data(), enzyme_const,
                                    FEATURES, enzyme_const, SAMPLES);
  check_kernel("tangent of normed_score");
  std::vector<float> dx(count), dgain(FEATURES);
  from_device(dx, d_dx);
  from_device(dgain, d_dgain);
  std::vector<double> want_gain(FEATURES, 0.0);
  double t_want = 0;
  for (int s = 0; s < SAMPLES; s++)
    for (int g0 = 0; g0 < FEATURES; g0 += GROUP) {
      const int at = s * FEATURES + g0;
      double norm2 = 0, cgx = 0;
      for (int k = 0; k < GROUP; k++) norm2 += (double)x[at + k] * x[at + k];
      double norm = sqrt(norm2);
      for (int k = 0; k < GROUP; k++) cgx += (double)c[at + k] * gain[g0 + k] * x[at + k];
      for (int k = 0; k < GROUP; k++) {
        // d/dx_k of sum_m c_m g_m x_m / norm
        double want = c[at + k] * gain[g0 + k] / norm - cgx * x[at + k] / (norm2 * norm);
        check_close(dx[at + k], want, 1e-4, "dx[%d][%d]", s, g0 + k);
        want_gain[g0 + k] += c[at + k] * x[at + k] / norm;
        t_want += want * tx[at + k];
      }
    }
  for (int k = 0; k < FEATURES; k++)
    check_close(dgain[k], want_gain[k], 1e-4, "dgain[%d]", k);
  check_close(tangent, t_want, 1e-3, "tangent along x");
  device_free_all();
  return check_exit();
}
