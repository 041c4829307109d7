// Regression: launches in differentiated host code beyond the simplest:
//  - scaled: an active by-value float kernel argument (enzyme_out alpha),
//    whose adjoint is the sum over threads: sum(dy * x^2); and dx = 2 alpha x;
//  - time_steps: an in-place kernel launched in a loop (x <- x*x, T times):
//    each launch overwrites what it read, the reverse kernels need what it
//    was (the runtime keeps copies): dx = 2^T x^(2^T - 1);
//  - two_streams: async copies host->device on two streams, a kernel on
//    each, async copies back, synchronised: the gradients of both halves;
//  - cross_streams: a copy on one stream, the kernel on another after an
//    event: the reverse sweep keeps the order across the streams.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The float argument's reverse kernel takes an accumulator after it:
// PTX-LABEL: .entry __kinase_krev_nd__Z8scale_sqPfPKffi(
// PTX: _param_3,
// PTX-NEXT: .param .f32 {{.*}}_param_4,
// PTX-NEXT: .param .u64 {{.*}}_param_5,
// PTX-NEXT: .param .u32 {{.*}}_param_6
//
// alpha's mode is 'o': its adjoint comes back from the reverse launch.
// CHECK-DAG: c"ddoc\00"
// CHECK-DAG: call void @__kinase_launch_reverse(
// CHECK-NOT: __enzyme_autodiff

#include <kinase.h>
#include <math.h>
#include <stdlib.h>
#include "cuda_check.h"

enum { N = 4096, T = 3 };

__global__ void scale_sq(float *y, const float *x, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = alpha * x[i] * x[i];
}

void scaled(float *y, const float *x, float alpha, int n) {
  scale_sq<<<(n + 255) / 256, 256>>>(y, x, alpha, n);
}

__global__ void square_in_place(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = x[i] * x[i];
}

void time_steps(float *x, int n, int steps) {
  for (int t = 0; t < steps; t++)
    square_in_place<<<(n + 127) / 128, 128>>>(x, n);
}

__global__ void cube(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * x[i] * x[i];
}

/* sum(x^3) over both halves of host x, each half on its own stream. */
float two_streams(const float *x, int n) {
  int half = n / 2;
  size_t bytes = half * sizeof(float);
  cudaStream_t s[2];
  float *d_in[2], *d_out[2], *h_out = (float *)malloc(n * sizeof(float));
  for (int k = 0; k < 2; k++) {
    cudaStreamCreate(&s[k]);
    cudaMalloc(&d_in[k], bytes);
    cudaMalloc(&d_out[k], bytes);
    cudaMemcpyAsync(d_in[k], x + k * half, bytes, cudaMemcpyHostToDevice, s[k]);
    cube<<<(half + 255) / 256, 256, 0, s[k]>>>(d_out[k], d_in[k], half);
    cudaMemcpyAsync(h_out + k * half, d_out[k], bytes, cudaMemcpyDeviceToHost, s[k]);
  }
  cudaDeviceSynchronize();
  float sum = 0;
  for (int i = 0; i < n; i++)
    sum += h_out[i];
  for (int k = 0; k < 2; k++) {
    cudaFree(d_in[k]);
    cudaFree(d_out[k]);
    cudaStreamDestroy(s[k]);
  }
  free(h_out);
  return sum;
}

/* The same through two streams ordered by an event: the copy in on stream a,
 * the kernel and the copy out on stream b. In reverse the kernel's reverse
 * (on b) leaves the adjoint the copy's reverse (on a) reads. */
float cross_streams(const float *x, int n) {
  cudaStream_t a, b;
  cudaEvent_t copied;
  cudaStreamCreate(&a);
  cudaStreamCreate(&b);
  cudaEventCreateWithFlags(&copied, cudaEventDisableTiming);
  size_t bytes = n * sizeof(float);
  float *d_in, *d_out, *h = (float *)malloc(bytes);
  cudaMalloc(&d_in, bytes);
  cudaMalloc(&d_out, bytes);
  cudaMemcpyAsync(d_in, x, bytes, cudaMemcpyHostToDevice, a);
  cudaEventRecord(copied, a);
  cudaStreamWaitEvent(b, copied, 0);
  cube<<<(n + 255) / 256, 256, 0, b>>>(d_out, d_in, n);
  cudaMemcpyAsync(h, d_out, bytes, cudaMemcpyDeviceToHost, b);
  cudaStreamSynchronize(b);
  float sum = 0;
  for (int i = 0; i < n; i++)
    sum += h[i];
  free(h);
  cudaFree(d_in);
  cudaFree(d_out);
  cudaEventDestroy(copied);
  cudaStreamDestroy(a);
  cudaStreamDestroy(b);
  return sum;
}

int main(void) {
  require_device();
  static float x[N], dx[N], y[N], dy[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.6f + 0.4f * sinf(0.01f * i);
    dy[i] = 1.0f - 0.0001f * i;
  }
  float *d_x = to_device(x), *d_dx = device_alloc(dx), *d_y = device_alloc(y), *d_dy = to_device(dy);

  const float alpha = 1.5f;
  check_cuda(cudaMemset(d_dx, 0, sizeof dx), "memset");
  double dalpha = __enzyme_autodiff((void *)scaled, enzyme_dup, d_y, d_dy, enzyme_dup, d_x, d_dx,
                                    enzyme_out, alpha, enzyme_const, N);
  check_kernel("scaled");
  from_device(dx, d_dx);
  double want_dalpha = 0;
  for (int i = 0; i < N; i++) {
    want_dalpha += (double)dy[i] * x[i] * x[i];
    check_close(dx[i], 2.0 * alpha * x[i] * dy[i], 1e-5, "scaled: d/dx[%d]", i);
  }
  check_close(dalpha, want_dalpha, 1e-4, "scaled: d/dalpha");

  /* time_steps works in place: x holds x^(2^T) afterwards. */
  float *d_v = to_device(x), *d_dv = device_alloc(dx);
  static float ones[N], v[N];
  for (int i = 0; i < N; i++)
    ones[i] = 1.0f;
  check_cuda(cudaMemcpy(d_dv, ones, sizeof ones, cudaMemcpyHostToDevice), "copy");
  __enzyme_autodiff((void *)time_steps, enzyme_dup, d_v, d_dv, enzyme_const, N, enzyme_const, T);
  check_kernel("time_steps");
  from_device(dx, d_dv);
  from_device(v, d_v);
  for (int i = 0; i < N; i++) {
    double p = 1 << T;
    check_close(v[i], pow(x[i], p), 1e-5, "time_steps: x[%d] afterwards", i);
    check_close(dx[i], p * pow(x[i], p - 1), 1e-4, "time_steps: d/dx[%d]", i);
  }

  static float hdx[N];
  __enzyme_autodiff((void *)two_streams, enzyme_dup, x, hdx, enzyme_const, N);
  check_kernel("two_streams");
  for (int i = 0; i < N; i++)
    check_close(hdx[i], 3.0 * x[i] * x[i], 1e-5, "two_streams: d/dx[%d]", i);

  for (int i = 0; i < N; i++)
    hdx[i] = 0;
  __enzyme_autodiff((void *)cross_streams, enzyme_dup, x, hdx, enzyme_const, N);
  check_kernel("cross_streams");
  for (int i = 0; i < N; i++)
    check_close(hdx[i], 3.0 * x[i] * x[i], 1e-5, "cross_streams: d/dx[%d]", i);

  device_free_all();
  return check_exit();
}
