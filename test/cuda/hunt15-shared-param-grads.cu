// Per-block gradient accumulation, as a CUDA scientist writes it to spare
// global atomics: each block copies the parameters into __shared__ memory,
// each thread differentiates its sample's loss inside the kernel
// (__enzyme_autodiff on a __device__ function) into a __shared__ shadow, and
// the block adds that shadow into the global gradient. Beside it, host code
// with a float4-vectorised kernel (__ldg through reinterpret_cast), a switch
// on the activation, pinned host buffers and cudaMemcpyAsync.
//
// The model's loop reads th[j]; the adjoint into dth[j], an address every
// lane shares, is summed across the warp once per iteration at the end of
// the iteration's reverse (reverse/loopadds.c). The first pass through the
// loop's reverse header ends no iteration, and its address is one past the
// last: dth[P], past the end of the __shared__ arrays. The warp's leader
// added its empty sum (-0.0) there: "an illegal memory access" at -O2 on an
// H100. Now a warp whose lanes hold nothing adds nothing (vote.any).
//   L_i = (m(x_i) - y_i)^2, m(x) = th_0 + sum_{j>=1} th_j x^j / j
//   dL/dth_j = sum_i 2 (m(x_i) - y_i) x_i^j / j
// and the activations' derivatives, against these analytic values.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --input-file=%t.O0.ptx
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK-NOT: __kinase_kwhy__Z4act4
// CHECK-LABEL: .entry _Z11block_grads
// CHECK: vote.sync.any.pred
// CHECK: shfl.sync.bfly
// CHECK-LABEL: .entry __kinase_krev_dn__Z4act4

#include <math.h>
#include <numeric>
#include <vector>
#include "cuda_check.h"

extern __device__ int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
template <typename R, typename... A> __device__ R __enzyme_autodiff(void *, A...);
extern int enzyme_dup, enzyme_const;
template <typename R, typename... A> R __enzyme_autodiff(void *, A...);
template <typename R, typename... A> R __enzyme_fwddiff(void *, A...);

enum { NS = 3000, P = 8, BS = 128, N4 = 4096 };

__device__ double model(const double *th, double x) {
  double s = th[0];
  double xp = 1;
  for (int j = 1; j < P; j++) { xp *= x; s += th[j] * xp / j; }
  return s;
}

__device__ double sample_loss(const double *th, double x, double y) {
  double r = model(th, x) - y;
  return r * r;
}

__global__ void __launch_bounds__(BS) block_grads(const double *theta, double *grad, const double *xs, const double *ys, int n) {
  __shared__ double th[P], dth[P];
  if (threadIdx.x < P) { th[threadIdx.x] = theta[threadIdx.x]; dth[threadIdx.x] = 0; }
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) __enzyme_autodiff<void>((void *)sample_loss, enzyme_dup, th, dth, enzyme_const, xs[i], enzyme_const, ys[i]);
  __syncthreads();
  if (threadIdx.x < P) atomicAdd(&grad[threadIdx.x], dth[threadIdx.x]);
}

__global__ void act4(const float *__restrict__ x, float *__restrict__ y, int n4, int kind) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n4) return;
  float4 v = __ldg(reinterpret_cast<const float4 *>(x) + i);
  float a[4] = {v.x, v.y, v.z, v.w};
  for (int k = 0; k < 4; k++) {
    switch (kind) {
    case 0: a[k] = fmaxf(a[k], 0.f); break;
    case 1: a[k] = tanhf(a[k]); break;
    case 2: a[k] = a[k] / (1.f + expf(-a[k])); break;
    default: break;
    }
  }
  reinterpret_cast<float4 *>(y)[i] = make_float4(a[0], a[1], a[2], a[3]);
}

float act_loss(const float *x, int n, int kind) {
  float *d_x, *d_y, *h_y;
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  cudaMallocHost(&h_y, n * sizeof(float));
  cudaMemcpyAsync(d_x, x, n * sizeof(float), cudaMemcpyHostToDevice, 0);
  act4<<<(n / 4 + 127) / 128, 128>>>(d_x, d_y, n / 4, kind);
  cudaMemcpyAsync(h_y, d_y, n * sizeof(float), cudaMemcpyDeviceToHost, 0);
  cudaStreamSynchronize(0);
  float s = 0;
  for (int i = 0; i < n; i++) s += h_y[i] * (1.0f + 0.001f * (i % 7));
  cudaFreeHost(h_y);
  cudaFree(d_x);
  cudaFree(d_y);
  return s;
}

int main() {
  require_device();
  std::vector<double> th(P), xs(NS), ys(NS), z(P, 0.0);
  for (int j = 0; j < P; j++) th[j] = 0.1 * (j + 1) * (j % 2 ? -1 : 1);
  for (int i = 0; i < NS; i++) { xs[i] = sin(0.37 * i); ys[i] = cos(0.11 * i); }
  double *dth = to_device(th), *g = to_device(z), *dxs = to_device(xs), *dys = to_device(ys);
  block_grads<<<blocks_for(NS, BS), BS>>>(dth, g, dxs, dys, NS);
  check_kernel("block_grads");
  std::vector<double> hg(P);
  from_device(hg, g);
  for (int j = 0; j < P; j++) {
    double want = 0;
    for (int i = 0; i < NS; i++) {
      double s = th[0], xp = 1;
      for (int k = 1; k < P; k++) { xp *= xs[i]; s += th[k] * xp / k; }
      double r = s - ys[i];
      want += 2 * r * (j == 0 ? 1.0 : pow(xs[i], j) / j);
    }
    check_close(hg[j], want, 1e-9, "dtheta[%d]", j);
  }
  std::vector<float> x(N4), dx(N4);
  for (int i = 0; i < N4; i++) x[i] = 2.f * sinf(0.01f * i + 0.005f);
  for (int kind = 0; kind < 3; kind++) {
    std::fill(dx.begin(), dx.end(), 0.f);
    __enzyme_autodiff<void>((void *)act_loss, enzyme_dup, x.data(), dx.data(), enzyme_const, (int)N4, enzyme_const, kind);
    check_kernel("act_loss gradient");
    for (int i = 0; i < N4; i++) {
      double a = x[i], w = 1.0 + 0.001 * (i % 7), d;
      if (kind == 0) d = a > 0 ? 1 : 0;
      else if (kind == 1) d = 1 - tanh(a) * tanh(a);
      else { double sg = 1 / (1 + exp(-a)); d = sg + a * sg * (1 - sg); }
      check_close(dx[i], w * d, 1e-4, "act %d: dx[%d]", kind, i);
    }
  }
  device_free_all();
  return check_exit();
}
