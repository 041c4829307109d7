// Regression: host code that allocates device memory, copies a host input in,
// launches a kernel and copies the result back, differentiated as a whole:
//  - squares_sum: host x -> fresh cudaMalloc buffer -> kernel y = x^2 ->
//    host buffer -> sum; the gradient 2x lands in the host shadow of x;
//  - round_trip: device -> host (scaled by 3 on the host) -> device; the
//    gradient flows back through both copies: 3 * seed;
//  - device_copy: a device-to-device copy into a scratch buffer, a memset of
//    the output, the kernel: 2x, the element type known only to the kernel
//    (the runtime learns it from the launch);
//  - the same functions in forward mode.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// With -g at -O2 (assignment tracking: the copies Kinase makes must not
// share the original's assignment IDs):
// RUN: %kinase-cc %cudainc -g -O2 --cuda-host-only -S -emit-llvm %s -o %t.g.ll
// RUN: FileCheck %s --input-file=%t.g.ll
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK-DAG: call void @__kinase_copy_reverse({{.*}}, i32 4,
// CHECK-DAG: call void @__kinase_copy_reverse({{.*}}, i32 0,
// CHECK-DAG: call {{.*}}ptr @__kinase_launch_augment(
// CHECK-NOT: __enzyme_autodiff

#include <kinase.h>
#include <stdlib.h>
#include "cuda_check.h"

enum { N = 5000 };

__global__ void square(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * x[i];
}

float squares_sum(const float *x, int n) {
  size_t bytes = n * sizeof(float);
  float *d_x, *d_y;
  cudaMalloc(&d_x, bytes);
  cudaMalloc(&d_y, bytes);
  cudaMemcpy(d_x, x, bytes, cudaMemcpyHostToDevice);
  square<<<(n + 255) / 256, 256>>>(d_y, d_x, n);
  float *y = (float *)malloc(bytes);
  cudaMemcpy(y, d_y, bytes, cudaMemcpyDeviceToHost);
  float s = 0;
  for (int i = 0; i < n; i++)
    s += y[i];
  free(y);
  cudaFree(d_x);
  cudaFree(d_y);
  return s;
}

void round_trip(float *dev_out, const float *dev_in, int n) {
  float *h = (float *)malloc(n * sizeof(float));
  cudaMemcpy(h, dev_in, n * sizeof(float), cudaMemcpyDefault);
  for (int i = 0; i < n; i++)
    h[i] *= 3.0f;
  cudaMemcpy(dev_out, h, n * sizeof(float), cudaMemcpyDefault);
  free(h);
}

void device_copy(float *dev_out, const float *dev_in, int n) {
  float *tmp;
  cudaMalloc(&tmp, n * sizeof(float));
  cudaMemcpy(tmp, dev_in, n * sizeof(float), cudaMemcpyDeviceToDevice);
  cudaMemset(dev_out, 0, n * sizeof(float));
  square<<<(n + 127) / 128, 128>>>(dev_out, tmp, n);
  cudaFree(tmp);
}

int main(void) {
  require_device();
  static float x[N], dx[N], seed[N], out[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.25f + 0.5f * cosf(0.003f * i);
    seed[i] = 1.0f + 0.001f * i;
  }

  __enzyme_autodiff((void *)squares_sum, enzyme_dup, x, dx, enzyme_const, N);
  check_kernel("squares_sum");
  for (int i = 0; i < N; i++)
    check_close(dx[i], 2.0 * x[i], 1e-5, "squares_sum: d/dx[%d]", i);

  double tangent = __enzyme_fwddiff((void *)squares_sum, enzyme_dup, x, seed, enzyme_const, N);
  double want = 0;
  for (int i = 0; i < N; i++)
    want += 2.0 * x[i] * seed[i];
  check_close(tangent, want, 1e-4, "squares_sum: tangent");

  float *d_x = to_device(x), *d_dx = device_alloc(dx), *d_out = device_alloc(out);
  float *d_seed = to_device(seed);
  for (int c = 0; c < 2; c++) {
    check_cuda(cudaMemset(d_dx, 0, sizeof dx), "memset");
    float *d_dout = to_device(seed);
    if (c == 0)
      __enzyme_autodiff((void *)round_trip, enzyme_dup, d_out, d_dout, enzyme_dup, d_x, d_dx, N);
    else
      __enzyme_autodiff((void *)device_copy, enzyme_dup, d_out, d_dout, enzyme_dup, d_x, d_dx, N);
    check_kernel(c ? "device_copy" : "round_trip");
    from_device(dx, d_dx);
    for (int i = 0; i < N; i++)
      check_close(dx[i], (c ? 2.0 * x[i] : 3.0) * seed[i], 1e-5, "%s: d/dx[%d]",
                  c ? "device_copy" : "round_trip", i);
    from_device(out, d_dout);
    for (int i = 0; i < N; i++)
      check_within(out[i], 0.0, 0.0, "%s: the output's adjoint is consumed", c ? "device_copy" : "round_trip");

    float *d_tout = device_alloc(out);
    if (c == 0)
      __enzyme_fwddiff((void *)round_trip, enzyme_dup, d_out, d_tout, enzyme_dup, d_x, d_seed, N);
    else
      __enzyme_fwddiff((void *)device_copy, enzyme_dup, d_out, d_tout, enzyme_dup, d_x, d_seed, N);
    check_kernel(c ? "device_copy forward" : "round_trip forward");
    from_device(out, d_tout);
    for (int i = 0; i < N; i++)
      check_close(out[i], (c ? 2.0 * x[i] : 3.0) * seed[i], 1e-5, "%s forward: [%d]",
                  c ? "device_copy" : "round_trip", i);
  }
  device_free_all();
  return check_exit();
}
