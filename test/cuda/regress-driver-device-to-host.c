// Regression: a device-to-host copy through the driver API (Enzyme.jl had no
// rule for cuMemcpyDtoHAsync_v2, so sum(abs2, Array(x)) of a GPU array could
// not be differentiated). f(dev_x, n), dev_x a CUdeviceptr marked enzyme_dup,
// copies it into a host buffer with cuMemcpyDtoHAsync on a stream of its
// own, synchronizes, and returns the sum of squares: the gradient lands in
// the device shadow, 2x; forward mode gives 2 x . t. The same through
// cuMemcpyDtoH of an offset CUdeviceptr (the second half only).
//
// REQUIRES: cuda
// RUN: %kinase-cc -O0 -I%cuda-root/include %cudainc -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc -O2 -I%cuda-root/include %cudainc -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc -O2 -I%cuda-root/include %cudainc %s -o %t.exe -lcuda -lm
//
// The reverse of the copy accumulates the host buffer's adjoint into the
// CUdeviceptr's shadow, then zeroes it (4-byte floats, cudaMemcpyDefault,
// on the copy's stream); the stream's destroy waits for the reverse sweep.
// CHECK-DAG: call void @__kinase_copy_reverse({{.*}}, i32 4,
// CHECK-DAG: call void @__kinase_defer_release(i32 3,
// CHECK-DAG: call void @__kinase_release_deferred()
// CHECK-DAG: call i32 @cuMemcpyDtoHAsync_v2(
// CHECK-NOT: __enzyme_autodiff
// CHECK-NOT: __enzyme_fwddiff

#include <cuda.h>
#include <kinase.h>
#include <stdlib.h>
#include "cu_check.h"

enum { N = 3000 };

float sum_of_squares(CUdeviceptr dev_x, int n) {
  CUstream stream;
  cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
  float *h = (float *)malloc(n * sizeof(float));
  cuMemcpyDtoHAsync(h, dev_x, n * sizeof(float), stream);
  cuStreamSynchronize(stream);
  float s = 0;
  for (int i = 0; i < n; i++)
    s += h[i] * h[i];
  free(h);
  cuStreamDestroy(stream);
  return s;
}

/* The second half of dev_x, through an offset CUdeviceptr. */
float upper_sum_of_squares(CUdeviceptr dev_x, int n) {
  int half = n / 2;
  float *h = (float *)malloc((n - half) * sizeof(float));
  cuMemcpyDtoH(h, dev_x + half * sizeof(float), (n - half) * sizeof(float));
  float s = 0;
  for (int i = 0; i < n - half; i++)
    s += h[i] * h[i];
  free(h);
  return s;
}

int main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  int count = 0;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGetCount(&count) != CUDA_SUCCESS || count < 1) {
    printf("NO CUDA DEVICE: cuInit or cuDeviceGetCount failed\n");
    return 2;
  }
  CUdevice device;
  CUcontext context;
  check_cu(cuDeviceGet(&device, 0), "cuDeviceGet");
  check_cu(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  check_cu(cuCtxSetCurrent(context), "cuCtxSetCurrent");

  static float x[N], t[N], dx[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.5f * sinf(0.01f * i) + 0.1f;
    t[i] = 0.25f * cosf(0.03f * i);
  }
  CUdeviceptr d_x = to_device_f(x, N), d_dx = device_zeros_f(N), d_t = to_device_f(t, N);

  __enzyme_autodiff((void *)sum_of_squares, enzyme_dup, d_x, d_dx, enzyme_const, N);
  from_device_f(dx, d_dx, N);
  for (int i = 0; i < N; i++)
    check_close(dx[i], 2.0 * x[i], 1e-5, "sum_of_squares: d/dx[%d]", i);

  check_cu(cuMemsetD32(d_dx, 0, N), "cuMemsetD32");
  __enzyme_autodiff((void *)upper_sum_of_squares, enzyme_dup, d_x, d_dx, enzyme_const, N);
  from_device_f(dx, d_dx, N);
  for (int i = 0; i < N; i++)
    check_close(dx[i], i < N / 2 ? 0.0 : 2.0 * x[i], 1e-5, "upper_sum_of_squares: d/dx[%d]", i);

  double want = 0;
  for (int i = 0; i < N; i++)
    want += 2.0 * x[i] * t[i];
  double got = __enzyme_fwddiff((void *)sum_of_squares, enzyme_dup, d_x, d_t, enzyme_const, N);
  check_close(got, want, 1e-4, "tangent of sum_of_squares");
  return check_exit();
}
