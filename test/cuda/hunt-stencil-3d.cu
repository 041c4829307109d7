// A 7-point stencil with a nonlinear term on a 3-D grid of 3-D blocks (the
// interior cells of an NX x NY x NZ box, each thread one cell, the boundary
// left alone), float, launched by a host function differentiated as a whole:
// out_c = a u_c + b (sum of the 6 neighbours) + 0.1 u_c^2 sin(u_c). With
// the output's adjoint all ones, u_j's gradient is what the cells that read
// it give it; forward along v, the stencil of v with the local slope.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
// RUN: not grep -E "kwhy.*stencil" %t.O0.ptx %t.ptx

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

enum { NX = 20, NY = 13, NZ = 9, N = NX * NY * NZ };

__device__ __host__ inline int cell(int x, int y, int z) { return (z * NY + y) * NX + x; }

__global__ void stencil(float *out, const float *u, float a, float b) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= NX - 1 || y >= NY - 1 || z >= NZ - 1)
    return;
  int c = cell(x, y, z);
  float around = u[c - 1] + u[c + 1] + u[c - NX] + u[c + NX] + u[c - NX * NY] + u[c + NX * NY];
  out[c] = a * u[c] + b * around + 0.1f * u[c] * u[c] * sinf(u[c]);
}

void step(float *out, const float *u) {
  dim3 block(8, 4, 2), grid((NX + 7) / 8, (NY + 3) / 4, (NZ + 1) / 2);
  stencil<<<grid, block>>>(out, u, 0.6f, 0.05f);
}

static bool interior(int x, int y, int z) { return x > 0 && y > 0 && z > 0 && x < NX - 1 && y < NY - 1 && z < NZ - 1; }
static double slope(double u) { return 0.6 + 0.2 * u * sin(u) + 0.1 * u * u * cos(u); }

int main(void) {
  require_device();
  static float u[N], v[N], ones[N], grad[N], tangent[N];
  for (int k = 0; k < N; k++) {
    u[k] = (float)(1 + 0.5 * sin(0.31 * k));
    v[k] = (float)cos(0.23 * k);
    ones[k] = 1;
  }
  float *d_u = to_device(u), *d_du = device_alloc<float>(N), *d_out = device_alloc<float>(N);
  float *d_dout = to_device(ones), *d_v = to_device(v), *d_tout = device_alloc<float>(N);
  check_cuda(cudaMemset(d_du, 0, sizeof grad), "cudaMemset");
  check_cuda(cudaMemset(d_tout, 0, sizeof tangent), "cudaMemset");
  __enzyme_autodiff((void *)step, enzyme_dupnoneed, d_out, d_dout, enzyme_dup, d_u, d_du);
  check_kernel("reverse");
  __enzyme_fwddiff((void *)step, enzyme_dup, d_out, d_tout, enzyme_dup, d_u, d_v);
  check_kernel("forward");
  from_device(grad, d_du);
  from_device(tangent, d_tout);
  device_free_all();
  static double want[N];
  const int offsets[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
  for (int z = 0; z < NZ; z++)
    for (int y = 0; y < NY; y++)
      for (int x = 0; x < NX; x++) {
        if (!interior(x, y, z))
          continue;
        int c = cell(x, y, z);
        want[c] += slope(u[c]);
        double along = slope(u[c]) * v[c];
        for (int k = 0; k < 6; k++) {
          int n = cell(x + offsets[k][0], y + offsets[k][1], z + offsets[k][2]);
          want[n] += 0.05;
          along += 0.05 * v[n];
        }
        check_close(tangent[c], along, 1e-4, "tangent at (%d, %d, %d)", x, y, z);
      }
  for (int c = 0; c < N; c++)
    check_close(grad[c], want[c], 1e-4, "d/du[%d]", c);
  return check_exit();
}
