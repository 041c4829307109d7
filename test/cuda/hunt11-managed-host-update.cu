// A time loop over managed memory, as users of cudaMallocManaged write it:
// a kernel reads the positions x and writes forces f, the host waits
// (cudaDeviceSynchronize) and updates x in place, x[i] += dt * f[i], and so
// on for a few steps. The reverse kernel of each launch re-runs the kernel
// from memory, so it must see x as that launch read it; the runtime copies
// what a pending launch read before a copy, a set or a launch writes it,
// and the host's own stores used to write x unannounced: every step's
// reverse kernel saw the last positions. Now each host store of the forward
// sweep that may reach a CUDA allocation is announced first
// (__kinase_before_host_write), the frame's own memory excepted. Checked
// against the exact derivative of the integrator, x' = x - dt sin(x).
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %opt -passes=verify -disable-output %t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The update of x is announced, just before it.
// CHECK: call void @__kinase_before_host_write(ptr {{.*}}, i64 4, ptr {{.*}}@kinase.text._Z8simulatePfiif)
// CHECK-NEXT: store float

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 1000, STEPS = 6 };

__global__ void force(float *f, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    f[i] = -sinf(x[i]);
}

// x: managed, updated in place.
void simulate(float *x, int n, int steps, float dt) {
  float *f;
  cudaMallocManaged(&f, n * sizeof(float));
  for (int s = 0; s < steps; s++) {
    force<<<(n + 127) / 128, 128>>>(f, x, n);
    cudaDeviceSynchronize();
    for (int i = 0; i < n; i++)
      x[i] += dt * f[i];
  }
  cudaFree(f);
}

int main() {
  require_device();
  const float dt = 0.2f;
  float *x, *dx;
  check_cuda(cudaMallocManaged(&x, N * sizeof(float)), "cudaMallocManaged");
  check_cuda(cudaMallocManaged(&dx, N * sizeof(float)), "cudaMallocManaged");
  std::vector<float> x0(N);
  for (int i = 0; i < N; i++) {
    x0[i] = x[i] = 3.0f * sinf(0.01f * i);
    dx[i] = 1.0f + 0.001f * i;
  }
  __enzyme_autodiff((void *)simulate, enzyme_dup, x, dx, enzyme_const, N, enzyme_const, STEPS,
                    enzyme_const, dt);
  check_kernel("gradient of simulate");
  check_cuda(cudaDeviceSynchronize(), "synchronize");
  for (int i = 0; i < N; i++) {
    double v = x0[i], g = 1.0 + 0.001 * i;
    for (int s = 0; s < STEPS; s++) {
      g *= 1.0 - dt * cos(v);
      v -= dt * sin(v);
    }
    check_close(x[i], v, 1e-4, "x[%d] after the steps", i);
    check_close(dx[i], g, 1e-4, "dx[%d]", i);
  }
  return check_exit();
}
