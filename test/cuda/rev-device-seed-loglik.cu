// The seed's per-sample log-likelihood as its users write it, through a
// device-side request: one thread per parameter vector calls
// __enzyme_autodiff on a __device__ function with an output pointer (logL
// dupnoneed), its own 4 parameters (dup) and the data (Const). Nothing
// needs recording: the only store is the unneeded result, so the data loop's
// loads are repeated in the reverse sweep; no device heap, no local-memory
// tape. Thread i owns dth + 4i (the function touches 16 bytes of it): in a
// one-dimensional launch its adjoints are plain adds, the atomic path stays
// for other launch shapes. Against analytic gradients, 2^16 threads (beyond
// what a device-heap tape allowed).
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: not grep -E "malloc|\.local" %t.ptx
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The clear of dlogL[i] waits until the data loop is done (a store ahead
// of the thread's loads cost 3.3x on the H200); the reverse loop walks one
// pointer down the data (no masked index per access). The launch's shape is
// checked once; the linear path adds plainly:
// CHECK-LABEL: .entry _Z9gradientsPfS_PKfS_S1_ii(
// CHECK-NOT: st.global
// CHECK: Inner Loop Header
// CHECK-NOT: and.b64 {{.*}}4294967294
// CHECK: Inner Loop Header
// CHECK-NOT: and.b64 {{.*}}4294967294
// CHECK: st.global.b32 [%rd{{[0-9]+}}], 0;
// CHECK: mov.u32 %r{{[0-9]+}}, %ntid.y;
// CHECK: ld.global.b32
// CHECK: add.f32
// CHECK: st.global.b32
// CHECK: atom.global.add.f32

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"
#include "loglik_grad.h"
#include "loglik_one.cuh"

enum { B = 1 << 16, N = 64, P = 4 };

__global__ void gradients(float *logL, float *dlogL, const float *th, float *dth, const float *x,
                          int n, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < b)
    __enzyme_autodiff((void *)loglik_one, enzyme_dupnoneed, logL + i, dlogL + i, enzyme_dup,
                      th + P * i, dth + P * i, enzyme_const, x, enzyme_const, n);
}

int main(void) {
  require_device();
  std::vector<float> th(B * P), x(2 * N), seed(B);
  loglik_data(x.data(), N);
  loglik_thetas(th.data(), B);
  for (int i = 0; i < B; i++)
    seed[i] = 1.0f + 0.25f * (i % 3);
  float *d_th = to_device(th), *d_x = to_device(x), *d_seed = to_device(seed);
  float *d_dth = device_alloc<float>(B * P), *d_logL = device_alloc<float>(B);
  check_cuda(cudaMemset(d_dth, 0, B * P * sizeof(float)), "memset");
  gradients<<<B / 256, 256>>>(d_logL, d_seed, d_th, d_dth, d_x, N, B);
  check_kernel("gradients");
  /* A two-dimensional launch takes the atomic path: the same gradients. */
  float *d_dth2 = device_alloc<float>(B * P);
  check_cuda(cudaMemset(d_dth2, 0, B * P * sizeof(float)), "memset");
  check_cuda(cudaMemcpy(d_seed, seed.data(), B * sizeof(float), cudaMemcpyHostToDevice), "copy");
  gradients<<<B / 256, dim3(256, 1, 1)>>>(d_logL, d_seed, d_th, d_dth2, d_x, N, B);
  check_kernel("gradients, again");
  std::vector<float> g(B * P), g2(B * P);
  from_device(g, d_dth);
  from_device(g2, d_dth2);
  for (int i = 0; i < B; i += 7) {
    double want[P];
    loglik_gradient(&th[P * i], x.data(), N, want);
    for (int p = 0; p < P; p++) {
      check_close(g[P * i + p], seed[i] * want[p], 2e-4, "dlogL[%d]/dtheta[%d]", i, p);
      check_close(g2[P * i + p], seed[i] * want[p], 2e-4, "again: dlogL[%d]/dtheta[%d]", i, p);
    }
  }
  device_free_all();
  return check_exit();
}
