// Regression: device memory reached through cuModuleGetGlobal inside the
// differentiated function, a __device__ array of the module used as the
// kernel's input buffer: the host input h is copied into it, scaled by a
// kernel launched with cuLaunchKernel into a cuMemAlloc buffer, copied back
// and summed as squares:
//   f(h, alpha) = sum((alpha h)^2),  df/dh = 2 alpha^2 h,  df/dalpha = 2 alpha sum(h^2).
// The array's shadow is the runtime's (no kernel writes it by name, so the
// module has none), taken from zero at each gradient; twice in a row, and
// in forward mode. Before, cuModuleGetGlobal had no rule ("CUDA API
// function 'cuModuleGetGlobal_v2' has no derivative rule in Kinase").
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
// CHECK-DAG: [[MODULE:%[0-9a-z.]+]] = call ptr @__kinase_module_shadow(ptr {{.*}}, ptr {{.*}},
// CHECK-DAG: [[SHADOW:%[0-9a-z.]+]] = call ptr @__kinase_variable_shadow(ptr %{{[0-9a-z.]+}}, ptr [[MODULE]],
// CHECK-DAG: call void @__kinase_variable_shadow_release(ptr
// CHECK-NOT: __enzyme_autodiff
// CHECK-NOT: __enzyme_fwddiff

#include <cuda.h>
#include <kinase.h>
#include <stdlib.h>
#include "cu_check.h"

enum { N = 5000 };

static CUmodule module;
static CUfunction scale;

float staged_norm(const float *h, float alpha, int n) {
  size_t bytes = n * sizeof(float), size;
  CUdeviceptr staged, out;
  cuModuleGetGlobal(&staged, &size, module, "staging");
  cuMemAlloc(&out, bytes);
  cuMemcpyHtoD(staged, h, bytes);
  void *args[] = {&out, &staged, &alpha, &n};
  cuLaunchKernel(scale, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL);
  float *back = (float *)malloc(bytes);
  cuMemcpyDtoH(back, out, bytes);
  float s = 0;
  for (int i = 0; i < n; i++)
    s += back[i] * back[i];
  free(back);
  cuMemFree(out);
  return s;
}

int main(int argc, char **argv) {
  (void)argc;
  module = require_device_module(argv[0]);
  check_cu(cuModuleGetFunction(&scale, module, "scale"), "cuModuleGetFunction scale");
  static float h[N], dh[N], t[N];
  double sum_h2 = 0, want_dir = 0;
  const float alpha = 0.75f;
  for (int i = 0; i < N; i++) {
    h[i] = 0.4f * sinf(0.03f * i) - 0.1f;
    t[i] = 0.5f * cosf(0.05f * i);
    sum_h2 += (double)h[i] * h[i];
    want_dir += 2.0 * alpha * alpha * h[i] * t[i];
  }
  for (int round = 0; round < 2; round++) {
    for (int i = 0; i < N; i++)
      dh[i] = 0;
    double dalpha = __enzyme_autodiff((void *)staged_norm, enzyme_dup, h, dh, enzyme_out, alpha,
                                      enzyme_const, N);
    for (int i = 0; i < N; i++)
      check_close(dh[i], 2.0 * alpha * alpha * h[i], 1e-5, "round %d: d/dh[%d]", round, i);
    check_close(dalpha, 2.0 * alpha * sum_h2, 1e-4, "round %d: d/dalpha", round);
  }
  double dir = __enzyme_fwddiff((void *)staged_norm, enzyme_dup, h, t, enzyme_const, alpha,
                                enzyme_const, N);
  check_close(dir, want_dir, 1e-4, "tangent along t");
  return check_exit();
}
