// Regression: a kernel whose reverse kernel must record a loop (a recurrence
// in registers, s = sin(s) x + c[k]: each step needs the s before it),
// differentiated through a host launch of 2^18 threads. On the device heap
// (8 MB) the tapes of a few thousand threads exhaust it; the reverse kernel
// takes a tape arena the runtime sizes by first launching it counting
// (runtime/kinase_cuda.h, KinaseTapeArena). Gradients against a reverse
// sweep on the host in double, for every thread (dx) and summed over threads
// (dc, which all threads share).
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --check-prefix=IR --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The kernel info's flags (third word) say KINASE_KERNEL_TAPE_ARENA (8):
// CHECK: .b8 __kinase_kinfo__Z5recurPfPKfS1_ii[{{[0-9]+}}] = {75, 73, 78, 49, 5, 0, 0, 0, 8, 0, 0, 0,
//
// The kernel itself and its forward kernel have nothing to do with arenas;
// every reverse kernel takes the arena last and sets the block's pointer to
// it; tapes grow by one atomic add on the arena's offset:
// IR: @kinase.tape.arena = internal {{.*}}addrspace(3) global ptr undef
// IR: define {{.*}}ptx_kernel void @_Z5recurPfPKfS1_ii(
// IR-NOT: @kinase.tape.arena
// IR: define {{.*}}ptx_kernel void @__kinase_krev_ndd__Z5recurPfPKfS1_ii({{.*}}, ptr %[[ARENA:[0-9]+]])
// IR: store ptr %[[ARENA]], ptr addrspace(3) @kinase.tape.arena
// IR: atomicrmw add ptr
// IR: define {{.*}}ptx_kernel void @__kinase_kfwd_ddd__Z5recurPfPKfS1_ii(
// IR-NOT: @kinase.tape.arena
// IR: }

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

#include "../../bench/recurrence.cuh"

enum { B = 1 << 18, N = 100 };

/* The host's reverse sweep of one thread: ds_n/dx, and ds_n/dc_k added to dc. */
static double host_gradient(double x, const std::vector<float> &coef, std::vector<double> &dc) {
  std::vector<double> s(N + 1);
  s[0] = 0;
  for (int k = 0; k < N; k++)
    s[k + 1] = sin(s[k]) * x + coef[k];
  double ds = 1, dx = 0;
  for (int k = N - 1; k >= 0; k--) {
    dc[k] += ds;
    dx += ds * sin(s[k]);
    ds *= cos(s[k]) * x;
  }
  return dx;
}

static double host_value(double x, const std::vector<float> &coef) {
  double s = 0;
  for (int k = 0; k < N; k++)
    s = sin(s) * x + coef[k];
  return s;
}

int main(void) {
  require_device();
  std::vector<float> xs(B), coef(N), seed(B, 1.0f), dxs(B), dcoef(N);
  for (int i = 0; i < B; i++)
    xs[i] = 0.3f + 0.5f * (float)(i % 997) / 997.f;
  for (int k = 0; k < N; k++)
    coef[k] = 0.1f * cosf(0.37f * k);
  float *d_out = device_alloc<float>(B), *d_dout = to_device(seed), *d_xs = to_device(xs);
  float *d_dxs = device_alloc<float>(B), *d_coef = to_device(coef), *d_dcoef = device_alloc<float>(N);
  check_cuda(cudaMemset(d_dxs, 0, B * sizeof(float)), "memset");
  check_cuda(cudaMemset(d_dcoef, 0, N * sizeof(float)), "memset");

  __enzyme_autodiff((void *)run, enzyme_dupnoneed, d_out, d_dout, enzyme_dup, d_xs, d_dxs,
                    enzyme_dup, d_coef, d_dcoef, N, B);
  check_kernel("gradient of run");
  from_device(dxs, d_dxs);
  from_device(dcoef, d_dcoef);

  std::vector<double> want_dc(N, 0.0);
  for (int i = 0; i < B; i++) {
    double want = host_gradient(xs[i], coef, want_dc);
    if (i == 7) {
      double h = 1e-6;
      require_exact(want, (host_value(xs[i] + h, coef) - host_value(xs[i] - h, coef)) / (2 * h), 1e-5,
                    "ds/dx");
    }
    check_close(dxs[i], want, 1e-3, "ds[%d]/dx", i);
  }
  for (int k = 0; k < N; k++)
    check_close(dcoef[k], want_dc[k], 1e-3, "sum of ds/dc[%d]", k);
  device_free_all();
  return check_exit();
}
