// Struct-of-arrays particles passed as a struct by value (the pointers to
// x, y, z and the count inside it): e_i = k (x^2 + y^2 + z^2) + sin(x y) z.
// Inside a kernel that takes the struct by value and its shadow struct,
// each thread differentiates, in both modes, a __device__ function taking
// the struct by value (enzyme_dup: the shadow struct holds the shadows'
// addresses). The gradient is (2 k x + y cos(x y) z, 2 k y + x cos(x y) z,
// 2 k z + sin(x y)). The kernel `energies`, taking such a struct, gets
// derivative kernels for launches from host code (test/cuda/host-struct-param.cu
// runs them): its shadow struct follows it.
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
// CHECK-NOT: __kinase_kwhy__Z8energiesPf9Particlesf
// The shadows' addresses come from the shadow struct; each gets its adjoint.
// CHECK-LABEL: .entry _Z11derivatives9ParticlesS_S_Pff(
// CHECK: ld.param.b64 {{.*}}[%rd{{[0-9]+}}+16];
// CHECK-COUNT-3: atom.global.add.f32
// CHECK-LABEL: .entry __kinase_krev_n__Z8energiesPf9Particlesf(
// CHECK-NEXT: .param .u64 {{.*}}_param_0,
// CHECK-NEXT: .param .u64 {{.*}}_param_1,
// CHECK-NEXT: .param .align 8 .b8 {{.*}}_param_2[32],
// CHECK-NEXT: .param .align 8 .b8 {{.*}}_param_3[32],
// CHECK-NEXT: .param .u64 {{.*}}_param_4,

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

enum { N = 1000, THREADS = 128 };

struct Particles {
  const float *x, *y, *z;
  int n;
};

__device__ float particle_energy(Particles p, int i, float k) {
  float x = p.x[i], y = p.y[i], z = p.z[i];
  return k * (x * x + y * y + z * z) + sinf(x * y) * z;
}

__global__ void energies(float *e, Particles p, float k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n)
    e[i] = particle_energy(p, i, k);
}

extern __device__ float __enzyme_fwddiff_f(void *, ...);

__global__ void derivatives(Particles p, Particles dp, Particles along, float *tangent, float k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p.n)
    return;
  __enzyme_autodiff((void *)particle_energy, enzyme_dup, p, dp, enzyme_const, i, enzyme_const, k);
  tangent[i] = __enzyme_fwddiff_f((void *)particle_energy, enzyme_dup, p, along, enzyme_const, i, enzyme_const, k);
}

int main(void) {
  require_device();
  static float x[N], y[N], z[N], ones[N], zeros[N], gx[N], gy[N], gz[N], tangent[N];
  for (int i = 0; i < N; i++) {
    x[i] = (float)sin(0.1 * i);
    y[i] = (float)cos(0.2 * i);
    z[i] = (float)(0.5 + 0.3 * sin(0.05 * i));
    ones[i] = 1;
  }
  float *d_gx = device_alloc<float>(N), *d_gy = device_alloc<float>(N), *d_gz = device_alloc<float>(N);
  float *d_ones = to_device(ones), *d_zeros = to_device(zeros), *d_t = device_alloc<float>(N);
  check_cuda(cudaMemset(d_gx, 0, sizeof gx), "cudaMemset");
  check_cuda(cudaMemset(d_gy, 0, sizeof gy), "cudaMemset");
  check_cuda(cudaMemset(d_gz, 0, sizeof gz), "cudaMemset");
  Particles p = {to_device(x), to_device(y), to_device(z), N}, dp = {d_gx, d_gy, d_gz, N};
  Particles along_x = {d_ones, d_zeros, d_zeros, N};
  derivatives<<<(N + THREADS - 1) / THREADS, THREADS>>>(p, dp, along_x, d_t, 0.5f);
  check_kernel("derivatives");
  from_device(gx, d_gx);
  from_device(gy, d_gy);
  from_device(gz, d_gz);
  from_device(tangent, d_t);
  device_free_all();
  for (int i = 0; i < N; i++) {
    double X = x[i], Y = y[i], Z = z[i];
    double wx = X + Y * cos(X * Y) * Z, wy = Y + X * cos(X * Y) * Z, wz = Z + sin(X * Y);
    check_close(gx[i], wx, 1e-5, "d/dx[%d]", i);
    check_close(gy[i], wy, 1e-5, "d/dy[%d]", i);
    check_close(gz[i], wz, 1e-5, "d/dz[%d]", i);
    check_close(tangent[i], wx, 1e-5, "tangent[%d]", i);
  }
  return check_exit();
}
