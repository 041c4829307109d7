// Forces by automatic differentiation inside a kernel, the way a molecular
// dynamics code might use Enzyme's ABI on the device: one block stages the
// positions into dynamic __shared__ memory beside a shared array of their
// adjoints (zeroed by the block), each thread calls __enzyme_autodiff on a
// __device__ function giving the energy of its particle, with the shared
// positions enzyme_dup and the shared adjoints as their shadow (every
// thread's reverse sweep adds into every particle's adjoint), then the
// block writes the total gradient out. Energy of particle i: sum_{j != i}
// 1 / ((x_i - x_j)^2 + c) + k x_i^2 (a harmonic trap). A second kernel does
// forward mode of the same function per particle along a direction.
// Gradient and directional derivatives against the analytic ones.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
// RUN: FileCheck %s --input-file=%t.ptx
//
// Every thread adds into every particle's shared adjoint: atomically.
// CHECK-LABEL: .entry _Z12total_forcesPfS_PKfi(
// CHECK: atom.shared.add.f32

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 200, THREADS = 128 };
#define SOFTENING 0.5f
#define TRAP 0.3f

__device__ float particle_energy(const float *pos, int i, int n) {
  float e = TRAP * pos[i] * pos[i];
  for (int j = 0; j < n; j++) {
    if (j == i)
      continue;
    float d = pos[i] - pos[j];
    e += 1.0f / (d * d + SOFTENING);
  }
  return e;
}

__global__ void total_forces(float *grad, float *energy, const float *x, int n) {
  extern __shared__ float shared[];
  float *pos = shared, *dpos = shared + n;
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    pos[j] = x[j];
    dpos[j] = 0.0f;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    __enzyme_autodiff((void *)particle_energy, enzyme_dup, pos, dpos, enzyme_const, i,
                      enzyme_const, n);
    atomicAdd(energy, particle_energy(pos, i, n));
  }
  __syncthreads();
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    grad[j] = dpos[j];
}

__global__ void directional(float *out, const float *x, const float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = __enzyme_fwddiff((void *)particle_energy, enzyme_dup, x, v, enzyme_const, i,
                              enzyme_const, n);
}

int main() {
  require_device();
  std::vector<float> x(N), v(N), grad(N), dirs(N), energy(1);
  for (int i = 0; i < N; i++) {
    x[i] = 4.0f * sinf(0.731f * i) + 0.01f * i;
    v[i] = cosf(0.5f * i);
  }
  float *d_x = to_device(x), *d_v = to_device(v), *d_grad = device_alloc<float>(N);
  float *d_energy = device_alloc<float>(1), *d_dirs = device_alloc<float>(N);
  check_cuda(cudaMemset(d_energy, 0, sizeof(float)), "memset");
  total_forces<<<1, THREADS, 2 * N * sizeof(float)>>>(d_grad, d_energy, d_x, N);
  check_kernel("total_forces");
  directional<<<blocks_for(N, 64), 64>>>(d_dirs, d_x, d_v, N);
  check_kernel("directional");
  from_device(grad, d_grad);
  from_device(dirs, d_dirs);
  check_cuda(cudaMemcpy(energy.data(), d_energy, sizeof(float), cudaMemcpyDeviceToHost), "copy");
  double e = 0;
  std::vector<double> want(N, 0.0);
  for (int i = 0; i < N; i++) {
    double ei = TRAP * (double)x[i] * x[i], dir = 2 * TRAP * x[i] * v[i];
    want[i] += 2 * TRAP * x[i];
    for (int j = 0; j < N; j++) {
      if (j == i)
        continue;
      double d = (double)x[i] - x[j], q = d * d + SOFTENING;
      ei += 1 / q;
      double g = -2 * d / (q * q);
      want[i] += g;
      want[j] -= g;
      dir += g * (v[i] - v[j]);
    }
    e += ei;
    check_close(dirs[i], dir, 1e-4, "directional derivative of particle %d", i);
  }
  for (int i = 0; i < N; i++)
    check_close(grad[i], want[i], 1e-4, "dE/dx[%d]", i);
  check_close(energy[0], e, 1e-4, "energy");
  device_free_all();
  return check_exit();
}
