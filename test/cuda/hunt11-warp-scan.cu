// A block-wide inclusive scan as CUDA users write it: a warp scan with
// __shfl_up_sync (a lane adds what it read only where lane >= offset), the
// warps' totals in shared memory scanned by warp 0 (with an explicit
// width), then each warp adding the totals before it; followed by a kernel
// normalising segments of 8 lanes with a __shfl_xor_sync butterfly of
// width 8. The scanned values are x^2; the loss is a weighted sum of the
// normalised values (dupnoneed output, the weights as its seed). Reverse
// mode against central differences of the same computation on the host.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 512, BLOCK = 256 };

__global__ void block_scan(const float *x, float *y, int n) {
  __shared__ float warp_total[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  float v = i < n ? x[i] * x[i] : 0.f;
  for (int o = 1; o < 32; o <<= 1) {
    float t = __shfl_up_sync(0xffffffffu, v, o);
    if (lane >= o)
      v += t;
  }
  if (lane == 31)
    warp_total[w] = v;
  __syncthreads();
  if (w == 0) {
    float t = lane < blockDim.x / 32 ? warp_total[lane] : 0.f;
    for (int o = 1; o < 32; o <<= 1) {
      float u = __shfl_up_sync(0xffffffffu, t, o, 32);
      if (lane >= o)
        t += u;
    }
    if (lane < blockDim.x / 32)
      warp_total[lane] = t;
  }
  __syncthreads();
  if (w > 0)
    v += warp_total[w - 1];
  if (i < n)
    y[i] = v;
}

__global__ void segment_normalise(const float *y, float *z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? y[i] : 0.f, s = v * v;
  for (int m = 4; m > 0; m >>= 1)
    s += __shfl_xor_sync(0xffffffffu, s, m, 8);
  if (i < n)
    z[i] = v * rsqrtf(s + 1.f);
}

void scan_normalise(const float *x, float *z, int n) {
  float *y;
  cudaMalloc(&y, n * sizeof(float));
  block_scan<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(x, y, n);
  segment_normalise<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(y, z, n);
  cudaFree(y);
}

static double loss(const std::vector<double> &x, const std::vector<float> &w) {
  std::vector<double> y(N);
  double acc = 0.0, total = 0.0;
  for (int i = 0; i < N; i++) {
    acc = (i % BLOCK ? acc : 0.0) + x[i] * x[i];
    y[i] = acc;
  }
  for (int s = 0; s < N; s += 8) {
    double q = 0.0;
    for (int k = 0; k < 8; k++)
      q += y[s + k] * y[s + k];
    for (int k = 0; k < 8; k++)
      total += w[s + k] * y[s + k] / sqrt(q + 1.0);
  }
  return total;
}

int main() {
  require_device();
  std::vector<float> x(N), w(N), dx(N, 0.0f);
  for (int i = 0; i < N; i++) {
    x[i] = 0.05f * sinf(0.3f * i) + 0.01f;
    w[i] = cosf(0.1f * i);
  }
  float *d_x = to_device(x), *d_dx = to_device(dx), *d_z = device_alloc<float>(N), *d_w = to_device(w);
  __enzyme_autodiff((void *)scan_normalise, enzyme_dup, d_x, d_dx, enzyme_dupnoneed, d_z, d_w, enzyme_const, N);
  check_kernel("gradient of scan_normalise");
  from_device(dx, d_dx);
  std::vector<double> xd(x.begin(), x.end());
  const double h = 1e-5;
  for (int i = 0; i < N; i++) {
    std::vector<double> p = xd, m = xd;
    p[i] += h;
    m[i] -= h;
    check_close(dx[i], (loss(p, w) - loss(m, w)) / (2 * h), 2e-3, "dx[%d]", i);
  }
  device_free_all();
  return check_exit();
}
