// The seed's log-likelihood with B = 1000, not a multiple of the block
// size (the last block's threads past B return at once), logL needed
// (enzyme_dup, its seed consumed) and a by-value float scale marked
// enzyme_out: dtheta = seed * scale * analytic gradient, d scale =
// sum(seed * logL / scale), logL itself checked.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The modes, one letter per parameter: logL d, thetas d, x Const, the
// scale an active float, n and b Const.
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_autodiff
// CHECK: c"ddcocc\00"
// CHECK: call ptr @__kinase_launch_augment({{.*}}@kinase.text.ddcocc

#include <kinase.h>
#include <vector>
#include "cuda_check.h"
#include "loglik_grad.h"
#include "loglik_one.cuh"

// The seed's log-likelihood, scaled by a temperature-like factor: B not a
// multiple of the block size, the scale passed by value and active.
__global__ void loglik_scaled(float *logL, const float *th, const float *x, float scale, int n,
                              int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= b)
    return;
  float l;
  loglik_one(&l, th + 4 * i, x, n);
  logL[i] = scale * l;
}

void compute_logLs(float *logLs, const float *thetas, const float *x, float scale, int n, int b) {
  loglik_scaled<<<(b + 255) / 256, 256>>>(logLs, thetas, x, scale, n, b);
}

static double loglik_value(const float *t, const float *x, int n) {
  double q = 0;
  for (int k = 0; k < n; k++) {
    double d1 = (x[2 * k] - t[0]) / t[2], d2 = (x[2 * k + 1] - t[1]) / t[3];
    q += d1 * d1 + d2 * d2;
  }
  return -0.5 * q - n * (log((double)t[2]) + log((double)t[3])) - n * log(2.0 * 3.14159265);
}

int main() {
  require_device();
  const int B = 1000, N = 50, P = 4; // 1000 = 3 * 256 + 232
  const float scale = 0.6f;
  std::vector<float> th(B * P), x(2 * N), seed(B), grad(B * P), logL(B);
  loglik_data(x.data(), N);
  loglik_thetas(th.data(), B);
  for (int i = 0; i < B; i++)
    seed[i] = 1.0f + 0.001f * i;
  float *d_th = to_device(th), *d_x = to_device(x), *d_seed = to_device(seed);
  float *d_logL = device_alloc<float>(B), *d_dth = device_alloc<float>(B * P);
  check_cuda(cudaMemset(d_dth, 0, B * P * sizeof(float)), "memset");
  // logL needed (enzyme_dup, as an HMC sampler wants it), scale active.
  double dscale = __enzyme_autodiff((void *)compute_logLs, enzyme_dup, d_logL, d_seed, enzyme_dup,
                                    d_th, d_dth, enzyme_const, d_x, enzyme_out, scale,
                                    enzyme_const, N, enzyme_const, B);
  check_kernel("gradient of compute_logLs");
  from_device(grad, d_dth);
  from_device(logL, d_logL);
  std::vector<float> seed_after(B);
  from_device(seed_after, d_seed);
  double want_dscale = 0;
  for (int i = 0; i < B; i++) {
    double g[4], value = loglik_value(&th[P * i], x.data(), N);
    loglik_gradient(&th[P * i], x.data(), N, g);
    for (int p = 0; p < P; p++)
      check_close(grad[P * i + p], seed[i] * scale * g[p], 2e-4, "dlogL[%d]/dtheta[%d]", i, p);
    check_close(logL[i], scale * value, 1e-4, "logL[%d]", i);
    check_close(seed_after[i], 0.0, 0.0, "the seed dlogL[%d] is consumed", i);
    want_dscale += seed[i] * value;
  }
  check_close(dscale, want_dscale, 1e-4, "d scale");
  return check_exit();
}
