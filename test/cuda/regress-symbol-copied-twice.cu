// Regression: a host function copies a different coefficient vector into
// one __constant__ variable before each of two launches, y = step_w2(step_w1(x)),
// through a buffer between the kernels that the request marks enzyme_dupnoneed.
// Two bugs, both silent:
// - the first launch was skipped, as a launch whose only result is not
//   needed, though the second launch reads it (dx, dw1 and dw2 all wrong);
// - the first launch's reverse kernel re-ran its forward part with w2, the
//   value the variable held at the end, not w1. Each copy into a variable now
//   saves what it overwrites, its reverse puts it back, and the end of the
//   request puts back what the function left (w2).
// Gradients with respect to x, w1 and w2 against the analytic ones, and the
// variable's value after the request.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK-LABEL: define internal {{.*}}@__kinase_rev_{{.*}}two_steps
// CHECK: call void @__kinase_copy_reverse(
// CHECK: call void @__kinase_symbol_restore(
// CHECK-LABEL: define internal {{.*}}@__kinase_aug_{{.*}}two_steps
// CHECK: call ptr @__kinase_symbol_snapshot(ptr {{.*}}, ptr {{.*}}@kinase.text.w, i64 0, i64 8,
// CHECK: {{call|invoke}} {{.*}}@cudaMemcpyToSymbol(
// CHECK: call ptr @__kinase_symbol_snapshot(
// Where an exception unwinds through the forward sweep, no reverse puts the
// snapshots back: the pair's release frees them.
// CHECK-LABEL: define internal void @__kinase_free_{{.*}}two_steps
// CHECK: call void @__kinase_symbol_discard(
// CHECK: call void @__kinase_symbol_discard(

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 256 };

__constant__ float w[2];

__global__ void step(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = w[0] * x[i] * x[i] + w[1] * x[i];
}

void two_steps(float *y, float *between, const float *x, const float *w1, const float *w2, int n) {
  cudaMemcpyToSymbol(w, w1, 2 * sizeof(float));
  step<<<(n + 63) / 64, 64>>>(between, x, n);
  cudaMemcpyToSymbol(w, w2, 2 * sizeof(float));
  step<<<(n + 63) / 64, 64>>>(y, between, n);
}

int main() {
  require_device();
  std::vector<float> x(N), ones(N, 1.0f), dx(N);
  for (int i = 0; i < N; i++)
    x[i] = 0.5f + 0.001f * i;
  float w1[2] = {0.3f, 1.1f}, w2[2] = {-0.7f, 0.4f}, dw1[2] = {0, 0}, dw2[2] = {0, 0};
  float *d_x = to_device(x), *d_dx = device_alloc<float>(N), *d_y = device_alloc<float>(N);
  float *d_dy = to_device(ones), *d_t = device_alloc<float>(N), *d_dt = device_alloc<float>(N);
  check_cuda(cudaMemset(d_dx, 0, N * sizeof(float)), "clear dx");
  check_cuda(cudaMemset(d_dt, 0, N * sizeof(float)), "clear dt");
  __enzyme_autodiff((void *)two_steps, enzyme_dupnoneed, d_y, d_dy, enzyme_dupnoneed, d_t, d_dt,
                    enzyme_dup, d_x, d_dx, enzyme_dup, w1, dw1, enzyme_dup, w2, dw2, enzyme_const, (int)N);
  from_device(dx, d_dx);
  double gw1[2] = {0, 0}, gw2[2] = {0, 0};
  for (int i = 0; i < N; i++) {
    double xi = x[i], t = w1[0] * xi * xi + w1[1] * xi;
    double dt = 2 * w2[0] * t + w2[1];
    gw2[0] += t * t;
    gw2[1] += t;
    gw1[0] += dt * xi * xi;
    gw1[1] += dt * xi;
    check_close(dx[i], dt * (2 * w1[0] * xi + w1[1]), 1e-4, "dx[%d]", i);
  }
  for (int k = 0; k < 2; k++) {
    check_close(dw1[k], gw1[k], 1e-4, "dw1[%d]", k);
    check_close(dw2[k], gw2[k], 1e-4, "dw2[%d]", k);
  }
  float left[2];
  check_cuda(cudaMemcpyFromSymbol(left, w, sizeof left), "read w");
  check_close(left[0], w2[0], 0, "w[0] after the request");
  check_close(left[1], w2[1], 0, "w[1] after the request");
  device_free_all();
  return check_exit();
}
