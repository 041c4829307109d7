// Regression: a round trip H->D->D->H through the driver API inside the
// differentiated function, device memory in local CUdeviceptr variables
// (their addresses taken by cuMemAlloc and by the launch's argument array):
// the host input h is copied into a fresh cuMemAlloc buffer, copied device to
// device into a second one (zeroed first with cuMemsetD32), scaled by a
// kernel launched with cuLaunchKernel, copied back and summed as squares:
//   f(h, alpha) = sum((alpha h)^2),  df/dh = 2 alpha^2 h,  df/dalpha = 2 alpha sum(h^2).
// The gradient lands in the host shadow of h; forward mode gives
// sum(2 alpha^2 h t).
//
// GPU-PTX: Inputs/loglik.cu
// REQUIRES: cuda
// RUN: %kinase-cc -O0 --cuda-device-only -S %S/Inputs/loglik.cu -o %t.exe.ptx
// RUN: %kinase-cc -O0 -I%cuda-root/include %cudainc -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc -O2 -I%cuda-root/include %cudainc -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc -O2 -I%cuda-root/include %cudainc %s -o %t.exe -lcuda -lm
//
// The buffers' shadows come from the runtime and go back to it; each copy's
// reverse accumulates, then zeroes; the set zeroes its shadow (n * 4 bytes).
// CHECK-DAG: call {{.*}}ptr @__kinase_shadow_alloc(
// CHECK-DAG: call void @__kinase_shadow_free(
// CHECK-DAG: call void @__kinase_copy_reverse(
// CHECK-DAG: call void @__kinase_defer_release(i32 0,
// CHECK-DAG: call {{.*}}ptr @__kinase_driver_launch_augment(
// CHECK-DAG: call void @__kinase_driver_launch_reverse(
// CHECK-DAG: call void @__kinase_driver_launch_tangent(
// CHECK-NOT: __enzyme_autodiff
// CHECK-NOT: __enzyme_fwddiff

#include <cuda.h>
#include <kinase.h>
#include <stdlib.h>
#include "cu_check.h"

enum { N = 5000 };

static CUfunction scale;

float scaled_norm(const float *h, float alpha, int n) {
  size_t bytes = n * sizeof(float);
  CUdeviceptr in, mid, out;
  cuMemAlloc(&in, bytes);
  cuMemAlloc(&mid, bytes);
  cuMemAlloc(&out, bytes);
  cuMemcpyHtoD(in, h, bytes);
  cuMemsetD32(mid, 0, n);
  cuMemcpyDtoD(mid, in, bytes);
  void *args[] = {&out, &mid, &alpha, &n};
  cuLaunchKernel(scale, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL);
  float *back = (float *)malloc(bytes);
  cuMemcpyDtoH(back, out, bytes);
  float s = 0;
  for (int i = 0; i < n; i++)
    s += back[i] * back[i];
  free(back);
  cuMemFree(in);
  cuMemFree(mid);
  cuMemFree(out);
  return s;
}

int main(int argc, char **argv) {
  (void)argc;
  CUmodule module = require_device_module(argv[0]);
  check_cu(cuModuleGetFunction(&scale, module, "scale"), "cuModuleGetFunction scale");
  static float h[N], dh[N], t[N];
  double sum_h2 = 0, want_dir = 0;
  const float alpha = 1.25f;
  for (int i = 0; i < N; i++) {
    h[i] = 0.3f * sinf(0.02f * i) + 0.05f;
    t[i] = 0.5f * cosf(0.07f * i);
    sum_h2 += (double)h[i] * h[i];
    want_dir += 2.0 * alpha * alpha * h[i] * t[i];
  }
  double dalpha = __enzyme_autodiff((void *)scaled_norm, enzyme_dup, h, dh, enzyme_out, alpha,
                                    enzyme_const, N);
  for (int i = 0; i < N; i++)
    check_close(dh[i], 2.0 * alpha * alpha * h[i], 1e-5, "d/dh[%d]", i);
  check_close(dalpha, 2.0 * alpha * sum_h2, 1e-4, "d/dalpha");
  double dir = __enzyme_fwddiff((void *)scaled_norm, enzyme_dup, h, t, enzyme_const, alpha,
                                enzyme_const, N);
  check_close(dir, want_dir, 1e-4, "tangent along t");
  return check_exit();
}
