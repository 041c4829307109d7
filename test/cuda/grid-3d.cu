// A kernel on a 3-D grid of 3-D blocks (every index of threadIdx, blockIdx,
// blockDim and gridDim in use), differentiated through the host function that
// launches it, reverse and forward mode: each thread writes its own element,
// reading its neighbour along z too. Against analytic gradients.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: not grep -E "kwhy|malloc" %t.ptx
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { NX = 16, NY = 12, NZ = 4, N = NX * NY * NZ };

__global__ void field(double *out, const double *u) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  int nx = gridDim.x * blockDim.x, ny = gridDim.y * blockDim.y, nz = gridDim.z * blockDim.z;
  int i = (z * ny + y) * nx + x, up = (((z + 1) % nz) * ny + y) * nx + x;
  out[i] = u[i] * u[i] * u[i] + 0.5 * sin(u[up]);
}

void evaluate(double *out, const double *u) {
  field<<<dim3(NX / 8, NY / 4, NZ / 2), dim3(8, 4, 2)>>>(out, u);
}

int main(void) {
  require_device();
  std::vector<double> u(N), seed(N), t(N);
  for (int i = 0; i < N; i++) {
    u[i] = 0.3 + 0.001 * i;
    seed[i] = 1.0 + 0.01 * (i % 7);
    t[i] = cos(0.1 * i);
  }
  double *d_u = to_device(u), *d_du = device_alloc<double>(N), *d_out = device_alloc<double>(N);
  double *d_seed = to_device(seed), *d_t = to_device(t), *d_dir = device_alloc<double>(N);
  check_cuda(cudaMemset(d_du, 0, N * sizeof(double)), "memset");
  __enzyme_autodiff((void *)evaluate, enzyme_dupnoneed, d_out, d_seed, enzyme_dup, d_u, d_du);
  check_kernel("gradient of evaluate");
  std::vector<double> du(N), dir(N);
  from_device(du, d_du);
  /* u[i] feeds out[i] (3u^2) and out[i - NX*NY] (the element below it along z, wrapping). */
  for (int i = 0; i < N; i++) {
    int below = (i - NX * NY + N) % N;
    check_close(du[i], seed[i] * 3 * u[i] * u[i] + seed[below] * 0.5 * cos(u[i]), 1e-12, "du[%d]", i);
  }
  __enzyme_fwddiff((void *)evaluate, enzyme_dup, d_out, d_dir, enzyme_dup, d_u, d_t);
  check_kernel("tangent of evaluate");
  from_device(dir, d_dir);
  for (int i = 0; i < N; i++) {
    int above = (i + NX * NY) % N;
    check_close(dir[i], 3 * u[i] * u[i] * t[i] + 0.5 * cos(u[above]) * t[above], 1e-12, "tangent[%d]", i);
  }
  device_free_all();
  return check_exit();
}
