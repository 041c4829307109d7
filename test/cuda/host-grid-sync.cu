// Kernels that wait at cooperative groups' grid-wide barrier
// (cg::this_grid().sync()), launched cooperatively from differentiated host
// code. The header's barrier is assembly (an atom.add.release and a spin on
// ld.acquire), which made every such kernel lose its derivative kernels ("it
// contains inline assembly"), and a differentiated launch stop. The barrier
// is now a row of lib/rules/warp.def: the reverse kernel waits at it again at
// the mirrored place, so that the adjoints every block adds before it are
// complete when the blocks read them after it.
//  - neighbours: tmp = x^2, grid sync, out[i] = tmp[i] + tmp[(i+1) % n]
//    (another block's element); host loss sum_i w_i out_i; analytic
//    gradient, and forward mode;
//  - normalise: every thread adds x_i^2 into a device scalar, grid sync,
//    y_i = x_i / sqrt(s) (all blocks read the total); copied back and
//    weighted on the host; the reverse kernel's adjoint of s is summed over
//    the grid before any thread reads it; central differences.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=DEV --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// Both kernels have derivative kernels, and no reason for lacking them:
// DEV-NOT: __kinase_kwhy_
// DEV-DAG: .entry __kinase_krev_{{[a-z]+}}__Z10neighboursPfS_PKfi(
// DEV-DAG: .entry __kinase_kfwd_{{[a-z]+}}__Z10neighboursPfS_PKfi(
// DEV-DAG: .entry __kinase_krev_{{[a-z]+}}__Z9normalisePfS_PKfi(
//
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_
// CHECK-DAG: call {{.*}}ptr @__kinase_direct_cooperative_augment(ptr {{.*}}@_Z25__device_stub__neighboursPfS_PKfi,
// CHECK-DAG: call {{.*}}ptr @__kinase_direct_cooperative_augment(ptr {{.*}}@_Z24__device_stub__normalisePfS_PKfi,
// CHECK-DAG: call void @__kinase_direct_cooperative_tangent(ptr {{.*}}@_Z25__device_stub__neighboursPfS_PKfi,

#include <cooperative_groups.h>
#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

namespace cg = cooperative_groups;

enum { N = 3000, THREADS = 128 };

__global__ void neighbours(float *out, float *tmp, const float *x, int n) {
  cg::grid_group grid = cg::this_grid();
  int i = (int)grid.thread_rank();
  if (i < n)
    tmp[i] = x[i] * x[i];
  grid.sync();
  if (i < n)
    out[i] = tmp[i] + tmp[(i + 1) % n];
}

__global__ void normalise(float *y, float *sum, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(sum, x[i] * x[i]);
  cg::this_grid().sync();
  if (i < n)
    y[i] = x[i] * rsqrtf(*sum);
}

static float weight(int i) { return 0.5f + 0.1f * (float)(i % 7); }

static dim3 grid_for(int n) { return dim3((n + THREADS - 1) / THREADS); }

float neighbours_loss(const float *d_x, int n) {
  float *d_tmp, *d_out;
  cudaMalloc(&d_tmp, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  void *args[] = {&d_out, &d_tmp, &d_x, &n};
  cudaLaunchCooperativeKernel((const void *)neighbours, grid_for(n), dim3(THREADS), args, 0, 0);
  std::vector<float> out(n);
  cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
  float loss = 0;
  for (int i = 0; i < n; i++)
    loss += weight(i) * out[i];
  cudaFree(d_tmp);
  cudaFree(d_out);
  return loss;
}

float normalise_loss(const float *x, int n) {
  float *d_x, *d_y, *d_sum;
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  cudaMalloc(&d_sum, sizeof(float));
  cudaMemcpy(d_x, x, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(d_sum, 0, sizeof(float));
  void *args[] = {&d_y, &d_sum, &d_x, &n};
  cudaLaunchCooperativeKernel((const void *)normalise, grid_for(n), dim3(THREADS), args, 0, 0);
  std::vector<float> y(n);
  cudaMemcpy(y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost);
  float loss = 0;
  for (int i = 0; i < n; i++)
    loss += weight(i) * y[i];
  cudaFree(d_x);
  cudaFree(d_y);
  cudaFree(d_sum);
  return loss;
}

int main() {
  require_device();
  int device = 0, cooperative = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  check_cuda(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device), "coop");
  if (!cooperative) {
    printf("NO CUDA DEVICE: no cooperative launch on this device\n");
    return 2;
  }
  std::vector<float> x(N), t(N), dx(N, 0.0f);
  for (int i = 0; i < N; i++) {
    x[i] = 0.3f * sinf(0.013f * i) + 0.05f * (float)(i % 3) + 0.1f;
    t[i] = cosf(0.021f * i);
  }

  float *d_x = to_device(x), *d_dx = device_alloc<float>(N), *d_t = to_device(t);
  check_cuda(cudaMemset(d_dx, 0, N * sizeof(float)), "memset");
  __enzyme_autodiff((void *)neighbours_loss, enzyme_dup, d_x, d_dx, enzyme_const, N);
  check_kernel("neighbours gradient");
  from_device(dx, d_dx);
  double directional = 0;
  for (int i = 0; i < N; i++) {
    double want = 2.0 * x[i] * (weight(i) + weight((i - 1 + N) % N));
    check_close(dx[i], want, 1e-5, "neighbours: d x[%d]", i);
    directional += want * t[i];
  }
  float tangent = __enzyme_fwddiff((void *)neighbours_loss, enzyme_dup, d_x, d_t, enzyme_const, N);
  check_kernel("neighbours forward");
  check_close(tangent, directional, 1e-4, "neighbours: forward mode");

  std::fill(dx.begin(), dx.end(), 0.0f);
  __enzyme_autodiff((void *)normalise_loss, enzyme_dup, x.data(), dx.data(), enzyme_const, N);
  check_kernel("normalise gradient");
  double s = 0, wy = 0;
  for (int i = 0; i < N; i++)
    s += (double)x[i] * x[i];
  for (int i = 0; i < N; i++)
    wy += weight(i) * x[i];
  for (int i = 0; i < N; i++) {
    /* d/dx_i sum_j w_j x_j s^-1/2 = w_i s^-1/2 - x_i s^-3/2 sum_j w_j x_j */
    double want = weight(i) / sqrt(s) - x[i] * wy / (s * sqrt(s));
    if (i % 500 == 0) {
      std::vector<float> xp = x, xm = x;
      xp[i] += 1e-2f;
      xm[i] -= 1e-2f;
      double fd = (normalise_loss(xp.data(), N) - normalise_loss(xm.data(), N)) / 2e-2;
      require_exact(want, fd, 2e-2, "normalise: d x[%d]", i);
    }
    check_close(dx[i], want, 1e-4, "normalise: d x[%d]", i);
  }
  return check_exit();
}
