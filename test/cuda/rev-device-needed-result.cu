// The seed's log-likelihood with its result needed (logL enzyme_dup: an HMC
// sampler wants the value with the gradient). The function writes logL, so
// its loads could not be repeated in the reverse sweep and the data loop
// was recorded on a device-heap tape; the store ends the function and the
// two sweeps run back to back, so it is made after the reverse sweep
// (lib/reverse/final.c) and nothing is recorded: no malloc, no local
// memory. 2^16 threads, logL and the gradients against analytic values;
// then a thread whose result is written over its own first parameter (the
// sweep must still see the parameter as the loop read it).
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK-LABEL: .entry _Z9gradientsPfS_PKfS_S1_ii(
// CHECK-NOT: {{malloc|\.local}}
// CHECK: ret;

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
    __enzyme_autodiff((void *)loglik_one, enzyme_dup, logL + i, dlogL + i, enzyme_dup,
                      th + P * i, dth + P * i, enzyme_const, x, enzyme_const, n);
}

/* logL is th[0] of the thread's own vector. */
__global__ void over_own_mean(float *th, float *dth, const float *x, int n, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < b)
    __enzyme_autodiff((void *)loglik_one, enzyme_dup, th + P * i, dth + P * i, enzyme_dup,
                      th + P * i, dth + P * i, enzyme_const, x, enzyme_const, n);
}

static double host_loglik(const float *t, const float *x, int n) {
  double q = 0;
  for (int k = 0; k < n; k++) {
    double d1 = (x[2 * k] - t[0]) / t[2], d2 = (x[2 * k + 1] - t[1]) / t[3];
    q += d1 * d1 + d2 * d2;
  }
  return -0.5 * q - n * (log(t[2]) + log(t[3])) - n * log(2 * 3.14159265);
}

/* Every 7th thread's gradient against the analytic one, times its seed. */
static void check_gradients(const std::vector<float> &g, const std::vector<float> &th,
                            const std::vector<float> &x, const std::vector<float> &seed,
                            const char *label) {
  for (int i = 0; i < B; i += 7) {
    double want[P];
    loglik_gradient(&th[P * i], x.data(), N, want);
    for (int p = 0; p < P; p++)
      check_close(g[P * i + p], seed[i] * want[p], 2e-4, "%sdlogL[%d]/dtheta[%d]", label, i, p);
  }
}

int main(void) {
  require_device();
  std::vector<float> th(B * P), x(2 * N), seed(B), dth0(B * P, 0.0f);
  loglik_data(x.data(), N);
  loglik_thetas(th.data(), B);
  for (int i = 0; i < B; i++)
    seed[i] = 1.0f + 0.25f * (i % 3);
  float *d_th = to_device(th), *d_x = to_device(x), *d_seed = to_device(seed);
  float *d_dth = to_device(dth0), *d_logL = device_alloc<float>(B);
  gradients<<<B / 256, 256>>>(d_logL, d_seed, d_th, d_dth, d_x, N, B);
  check_kernel("gradients");
  std::vector<float> g(B * P), logL(B), seed_after(B);
  from_device(g, d_dth);
  from_device(logL, d_logL);
  from_device(seed_after, d_seed);
  check_gradients(g, th, x, seed, "");
  for (int i = 0; i < B; i += 7) {
    check_close(logL[i], host_loglik(&th[P * i], x.data(), N), 1e-5, "logL[%d]", i);
    check_close(seed_after[i], 0.0, 0, "dlogL[%d] consumed", i);
  }

  /* th[0] becomes logL; its adjoint is the seed, cleared, then the
   * gradient with respect to the vector as the loop read it. */
  std::vector<float> dth(B * P, 0.0f);
  for (int i = 0; i < B; i++)
    dth[P * i] = seed[i];
  float *d_th2 = to_device(th), *d_dth2 = to_device(dth);
  over_own_mean<<<B / 256, 256>>>(d_th2, d_dth2, d_x, N, B);
  check_kernel("over_own_mean");
  std::vector<float> th_after(B * P);
  from_device(g, d_dth2);
  from_device(th_after, d_th2);
  check_gradients(g, th, x, seed, "overwritten: ");
  for (int i = 0; i < B; i += 7)
    check_close(th_after[P * i], host_loglik(&th[P * i], x.data(), N), 1e-5, "th[%d][0] = logL", i);
  device_free_all();
  return check_exit();
}
