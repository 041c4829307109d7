// Regression: device-to-host copies in differentiated host code (Enzyme.jl
// had no rule for cuMemcpyDtoHAsync, so sum(abs2, Array(x)) of a GPU array
// could not be differentiated).
//  - sum_of_squares: cudaMemcpy of a device array into a host buffer, then a
//    sum of squares on the host: the gradient lands in the device shadow, 2x;
//  - half_norm: a kernel reduces -0.5 * sum(b^2) into a scratch device float
//    (cudaMalloc, cudaMemset, cudaFree inside), whose 4 bytes are copied
//    back and returned: the gradient is -b;
//  - both again with cudaMemcpyAsync on a stream and cudaStreamSynchronize.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The reverse of a copy moves the destination's adjoint into the source's
// shadow (4-byte floats), wherever each lives; the scratch float's shadow
// comes from the runtime and goes back to it.
// CHECK-DAG: call void @__kinase_copy_reverse({{.*}}, i32 4,
// CHECK-DAG: call {{.*}}ptr @__kinase_shadow_alloc(
// CHECK-DAG: call void @__kinase_shadow_free(
// CHECK-DAG: call void @__kinase_before_write(
// The free and the stream's destroy wait for the end of the reverse sweep,
// which still reads that memory and copies on that stream:
// CHECK-DAG: call void @__kinase_defer_release(i32 0,
// CHECK-DAG: call void @__kinase_defer_release(i32 3,
// CHECK-DAG: call void @__kinase_release_deferred()
// CHECK-NOT: __enzyme_autodiff

#include <kinase.h>
#include <stdlib.h>
#include "cuda_check.h"

enum { N = 3000 };

float sum_of_squares(const float *dev_x, int n) {
  float *h = (float *)malloc(n * sizeof(float));
  cudaMemcpy(h, dev_x, n * sizeof(float), cudaMemcpyDeviceToHost);
  float s = 0;
  for (int i = 0; i < n; i++)
    s += h[i] * h[i];
  free(h);
  return s;
}

float sum_of_squares_async(const float *dev_x, int n) {
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  float *h = (float *)malloc(n * sizeof(float));
  cudaMemcpyAsync(h, dev_x, n * sizeof(float), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  float s = 0;
  for (int i = 0; i < n; i++)
    s += h[i] * h[i];
  free(h);
  cudaStreamDestroy(stream);
  return s;
}

__global__ void half_sum_of_squares(float *out, const float *b, int n) {
  float s = 0;
  for (int i = 0; i < n; i++)
    s += b[i] * b[i];
  *out = -0.5f * s;
}

float half_norm(const float *b, int n) {
  float *acc;
  cudaMalloc(&acc, sizeof(float));
  cudaMemset(acc, 0, sizeof(float));
  half_sum_of_squares<<<1, 1>>>(acc, b, n);
  float result;
  cudaMemcpy(&result, acc, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(acc);
  return result;
}

int main(void) {
  require_device();
  static float x[N], dx[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.5f * sinf(0.01f * i) + 0.1f;
  float *d_x = to_device(x), *d_dx = device_alloc(dx);

  const char *names[3] = {"sum_of_squares", "sum_of_squares_async", "half_norm"};
  const double scale[3] = {2.0, 2.0, -1.0}; /* the gradient is scale * x */
  for (int c = 0; c < 3; c++) {
    check_cuda(cudaMemset(d_dx, 0, sizeof dx), "memset");
    if (c == 0)
      __enzyme_autodiff((void *)sum_of_squares, enzyme_dup, d_x, d_dx, enzyme_const, N);
    else if (c == 1)
      __enzyme_autodiff((void *)sum_of_squares_async, enzyme_dup, d_x, d_dx, enzyme_const, N);
    else
      __enzyme_autodiff((void *)half_norm, enzyme_dup, d_x, d_dx, enzyme_const, N);
    check_kernel(names[c]);
    from_device(dx, d_dx);
    for (int i = 0; i < N; i++)
      check_close(dx[i], scale[c] * x[i], 1e-5, "%s: d/dx[%d]", names[c], i);
  }
  device_free_all();
  return check_exit();
}
