// Regression: a host function that launches a kernel, differentiated with the
// data passed as enzyme_const (Enzyme.jl crashed on a Const kernel argument,
// Enzyme has no rule for the launch). The seed's batched log-likelihood: one
// thread per parameter vector, logLs enzyme_dupnoneed, thetas enzyme_dup, x
// enzyme_const; per-sample gradients checked against the analytic ones, and
// forward mode through the same launch.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: not grep -E "kfwd_ddc|krev_d|krev_.c" %t.ptx
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --check-prefix=HOST --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --check-prefix=HOST --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The device module holds the kernel's facts and its derivative kernels: x
// (read only, by every thread) may be Const; th (read only, each thread its
// own four) and logL (written, its results not stored again: 'n') always
// have a shadow:
// PTX: .global .align 4 .b8 __kinase_kinfo__Z6loglikPfPKfS1_ii
// PTX-DAG: .entry __kinase_krev_ndc__Z6loglikPfPKfS1_ii(
// PTX-DAG: .entry __kinase_krev_ndd__Z6loglikPfPKfS1_ii(
// PTX-DAG: .entry __kinase_kfwd_ddd__Z6loglikPfPKfS1_ii(
//
// The host passes no shadow for the Const data: its mode letter is 'c'; logLs,
// dupnoneed and used for nothing but the launch, is 'n' (the runtime skips a
// launch whose only effect is unneeded), and 'd' in forward mode.
// HOST-DAG: c"ndccc\00"
// HOST-DAG: c"ddccc\00"
// HOST-DAG: call {{.*}}ptr @__kinase_launch_augment(ptr {{.*}}@_Z21__device_stub__loglikPfPKfS1_ii
// HOST-DAG: call void @__kinase_launch_reverse(
// HOST-DAG: call void @__kinase_launch_tangent(ptr {{.*}}@_Z21__device_stub__loglikPfPKfS1_ii
// HOST-NOT: __enzyme_autodiff

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"
#include "loglik_grad.h"

enum { B = 4096, N = 64, P = 4 };

__global__ void loglik(float *logL, const float *th, const float *x, int n, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= b)
    return;
  const float *t = th + P * i;
  float mu1 = t[0], mu2 = t[1], s1 = t[2], s2 = t[3];
  float is1 = 1.f / s1, is2 = 1.f / s2, q = 0.f;
  for (int k = 0; k < n; k++) {
    float d1 = (x[2 * k] - mu1) * is1, d2 = (x[2 * k + 1] - mu2) * is2;
    q += d1 * d1 + d2 * d2;
  }
  logL[i] = -0.5f * q - n * (logf(s1) + logf(s2));
}

void compute_logLs(float *logLs, const float *thetas, const float *x, int n, int b) {
  loglik<<<(b + 255) / 256, 256>>>(logLs, thetas, x, n, b);
}

static double host_loglik(const double *t, const std::vector<float> &x) {
  double q = 0;
  for (int k = 0; k < N; k++) {
    double d1 = (x[2 * k] - t[0]) / t[2], d2 = (x[2 * k + 1] - t[1]) / t[3];
    q += d1 * d1 + d2 * d2;
  }
  return -0.5 * q - N * (log(t[2]) + log(t[3]));
}

int main(void) {
  require_device();
  std::vector<float> th(B * P), x(2 * N), seed(B, 1.0f), tangent(B * P);
  loglik_data(x.data(), N);
  loglik_thetas(th.data(), B);
  for (int i = 0; i < B; i++)
    for (int p = 0; p < P; p++)
      tangent[P * i + p] = 0.25f * (p + 1) - 0.1f * (i % 3);
  float *d_th, *d_dth, *d_x, *d_logL, *d_dlogL;
  check_cuda(cudaMalloc(&d_th, B * P * sizeof(float)), "cudaMalloc");
  check_cuda(cudaMalloc(&d_dth, B * P * sizeof(float)), "cudaMalloc");
  check_cuda(cudaMalloc(&d_x, 2 * N * sizeof(float)), "cudaMalloc");
  check_cuda(cudaMalloc(&d_logL, B * sizeof(float)), "cudaMalloc");
  check_cuda(cudaMalloc(&d_dlogL, B * sizeof(float)), "cudaMalloc");
  check_cuda(cudaMemcpy(d_th, th.data(), B * P * sizeof(float), cudaMemcpyHostToDevice), "copy");
  check_cuda(cudaMemcpy(d_x, x.data(), 2 * N * sizeof(float), cudaMemcpyHostToDevice), "copy");
  check_cuda(cudaMemset(d_dth, 0, B * P * sizeof(float)), "memset");
  check_cuda(cudaMemcpy(d_dlogL, seed.data(), B * sizeof(float), cudaMemcpyHostToDevice), "copy");

  __enzyme_autodiff((void *)compute_logLs, enzyme_dupnoneed, d_logL, d_dlogL, enzyme_dup, d_th,
                    d_dth, enzyme_const, d_x, N, B);
  check_kernel("gradient of compute_logLs");
  std::vector<float> grad(B * P), seed_after(B);
  check_cuda(cudaMemcpy(grad.data(), d_dth, B * P * sizeof(float), cudaMemcpyDeviceToHost), "copy");
  check_cuda(cudaMemcpy(seed_after.data(), d_dlogL, B * sizeof(float), cudaMemcpyDeviceToHost), "copy");

  /* Forward mode: the directional derivative along `tangent`. */
  float *d_t, *d_dir;
  check_cuda(cudaMalloc(&d_t, B * P * sizeof(float)), "cudaMalloc");
  check_cuda(cudaMalloc(&d_dir, B * sizeof(float)), "cudaMalloc");
  check_cuda(cudaMemcpy(d_t, tangent.data(), B * P * sizeof(float), cudaMemcpyHostToDevice), "copy");
  __enzyme_fwddiff((void *)compute_logLs, enzyme_dup, d_logL, d_dir, enzyme_dup, d_th, d_t,
                   enzyme_const, d_x, N, B);
  check_kernel("tangent of compute_logLs");
  std::vector<float> dir(B);
  check_cuda(cudaMemcpy(dir.data(), d_dir, B * sizeof(float), cudaMemcpyDeviceToHost), "copy");

  for (int i = 0; i < B; i++) {
    double g[P];
    loglik_gradient(&th[P * i], x.data(), N, g);
    if (i == 5)
      for (int p = 0; p < P; p++) {
        double up[P] = {th[P * i], th[P * i + 1], th[P * i + 2], th[P * i + 3]}, h = 1e-6;
        double down[P] = {up[0], up[1], up[2], up[3]};
        up[p] += h;
        down[p] -= h;
        require_exact(g[p], (host_loglik(up, x) - host_loglik(down, x)) / (2 * h), 1e-5,
                      "dlogL/dtheta[%d]", p);
      }
    double want_dir = 0;
    for (int p = 0; p < P; p++) {
      check_close(grad[P * i + p], g[p], 2e-4, "dlogL[%d]/dtheta[%d]", i, p);
      want_dir += g[p] * tangent[P * i + p];
    }
    check_close(dir[i], want_dir, 2e-4, "tangent of logL[%d]", i);
    check_within(seed_after[i], 0.0, 0.0, "the seed dlogL[%d] is consumed", i);
  }
  return check_exit();
}
