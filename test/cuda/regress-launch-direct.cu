// Regression: cudaLaunchKernel called directly with a kernel handle and an
// argument array, as CUDA code written without <<<>>> does (Enzyme has no
// rule for cudaLaunchKernel). The seed's compute_logLs: logLs
// enzyme_dupnoneed, thetas enzyme_dup, the data x enzyme_const, per-sample
// gradients and forward mode; and the adjoint of an active by-value float
// (alpha, enzyme_out) summed over the threads. The kernels are the
// driver-API tests' (Inputs/loglik.cu).
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: FileCheck %s --check-prefix=CONST --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The user's launch stays, recorded just before; the reverse sweep launches
// the reverse kernel, forward mode the forward kernel in its place.
// CHECK-DAG: call {{.*}}ptr @__kinase_direct_launch_augment(ptr {{.*}}@__device_stub__loglik
// CHECK-DAG: call {{.*}}i32 @cudaLaunchKernel(ptr {{.*}}@__device_stub__loglik
// CHECK-DAG: call void @__kinase_driver_launch_reverse(
// CHECK-DAG: call void @__kinase_direct_launch_tangent(ptr {{.*}}@__device_stub__loglik
// CHECK-NOT: __enzyme_autodiff
//
// The shadows of the argument slots: logLs's and thetas's pointers, null
// for the Const data x, which the reverse launch thus passes as Const. The
// parameters: logLs, its shadow, thetas, its shadow, x.
// CONST-LABEL: define internal {{.*}} @__kinase_aug__Z13compute_logLsPfPKfS1_ii(ptr %0, ptr %1, ptr %2, ptr %3, ptr %4,
// CONST: store ptr %1, ptr
// CONST: store ptr %3, ptr
// CONST: store ptr null, ptr
// CONST: call {{.*}}ptr @__kinase_direct_launch_augment(

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"
#include "loglik_grad.h"
#include "Inputs/loglik.cu"

enum { B = 2048, N = 32, P = 4 };

void compute_logLs(float *logLs, const float *thetas, const float *x, int n, int b) {
  void *args[] = {&logLs, &thetas, &x, &n, &b};
  cudaLaunchKernel((const void *)loglik, dim3((b + 255) / 256), dim3(256), args, 0, nullptr);
}

void apply_scale(float *out, const float *in, float alpha, int n) {
  void *args[] = {&out, &in, &alpha, &n};
  cudaLaunchKernel((const void *)scale, dim3((n + 127) / 128), dim3(128), args, 0, nullptr);
}

int main(void) {
  require_device();
  std::vector<float> th(B * P), x(2 * N), seed(B, 1.0f), tangent(B * P);
  loglik_data(x.data(), N);
  loglik_thetas(th.data(), B);
  for (int i = 0; i < B; i++)
    for (int p = 0; p < P; p++)
      tangent[P * i + p] = 0.25f * (p + 1) - 0.1f * (i % 3);
  float *d_th = device_alloc<float>(B * P), *d_dth = device_alloc<float>(B * P);
  float *d_x = device_alloc<float>(2 * N), *d_logL = device_alloc<float>(B);
  float *d_dlogL = device_alloc<float>(B), *d_t = device_alloc<float>(B * P);
  float *d_dir = device_alloc<float>(B);
  check_cuda(cudaMemcpy(d_th, th.data(), B * P * sizeof(float), cudaMemcpyHostToDevice), "copy");
  check_cuda(cudaMemcpy(d_x, x.data(), 2 * N * sizeof(float), cudaMemcpyHostToDevice), "copy");
  check_cuda(cudaMemcpy(d_t, tangent.data(), B * P * sizeof(float), cudaMemcpyHostToDevice), "copy");
  check_cuda(cudaMemset(d_dth, 0, B * P * sizeof(float)), "memset");
  check_cuda(cudaMemcpy(d_dlogL, seed.data(), B * sizeof(float), cudaMemcpyHostToDevice), "copy");

  __enzyme_autodiff((void *)compute_logLs, enzyme_dupnoneed, d_logL, d_dlogL, enzyme_dup, d_th,
                    d_dth, enzyme_const, d_x, N, B);
  check_kernel("gradient of compute_logLs");
  __enzyme_fwddiff((void *)compute_logLs, enzyme_dup, d_logL, d_dir, enzyme_dup, d_th, d_t,
                   enzyme_const, d_x, N, B);
  check_kernel("tangent of compute_logLs");
  std::vector<float> grad(B * P), dir(B);
  check_cuda(cudaMemcpy(grad.data(), d_dth, B * P * sizeof(float), cudaMemcpyDeviceToHost), "copy");
  check_cuda(cudaMemcpy(dir.data(), d_dir, B * sizeof(float), cudaMemcpyDeviceToHost), "copy");
  for (int i = 0; i < B; i++) {
    double g[P], want_dir = 0;
    loglik_gradient(&th[P * i], x.data(), N, g);
    for (int p = 0; p < P; p++) {
      check_close(grad[P * i + p], g[p], 2e-4, "dlogL[%d]/dtheta[%d]", i, p);
      want_dir += g[p] * tangent[P * i + p];
    }
    check_close(dir[i], want_dir, 2e-4, "tangent of logL[%d]", i);
  }

  /* out = alpha * in (the first B floats of theta), seed dout = 1 + i % 3. */
  std::vector<float> dout(B), din(B);
  for (int i = 0; i < B; i++)
    dout[i] = 1.0f + (float)(i % 3);
  float *d_out = device_alloc<float>(B), *d_dout = device_alloc<float>(B);
  float *d_din = device_alloc<float>(B);
  check_cuda(cudaMemcpy(d_dout, dout.data(), B * sizeof(float), cudaMemcpyHostToDevice), "copy");
  check_cuda(cudaMemset(d_din, 0, B * sizeof(float)), "memset");
  const float alpha = 1.5f;
  double dalpha = __enzyme_autodiff((void *)apply_scale, enzyme_dup, d_out, d_dout, enzyme_dup,
                                    d_th, d_din, enzyme_out, alpha, enzyme_const, B);
  check_kernel("gradient of apply_scale");
  check_cuda(cudaMemcpy(din.data(), d_din, B * sizeof(float), cudaMemcpyDeviceToHost), "copy");
  double want = 0;
  for (int i = 0; i < B; i++) {
    want += (1.0 + i % 3) * th[i];
    check_close(din[i], alpha * (1.0 + i % 3), 1e-6, "din[%d]", i);
  }
  check_close(dalpha, want, 1e-4, "d alpha");
  device_free_all();
  return check_exit();
}
