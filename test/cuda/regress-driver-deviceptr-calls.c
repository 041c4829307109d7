// CUdeviceptrs that differentiated driver-API host code only passes on: to
// a helper of the module that launches or copies, or inside a structure
// passed by value. Before, a CUdeviceptr read out of a structure passed
// enzyme_dup and handed to a helper (launch_scale(buf->out, buf->in, ...))
// was a plain number, and so was the call: the helper ran undifferentiated
// and every gradient through it (alpha's too) was silently zero; a
// structure {out, in} passed by value to __enzyme_autodiff was refused
// ("argument for parameter 3 does not match its type"). Cases, each
// out = alpha * in with d alpha = sum(dout * in), din = alpha * dout:
//   - fields of a structure passed enzyme_dup, given to a launching helper;
//   - enzyme_dup CUdeviceptr arguments given to a copying helper (into a
//     temporary from cuMemAlloc) and to the launching helper;
//   - struct ScaleBuffers passed by value, enzyme_dup, to the function
//     differentiated (its pieces: two CUdeviceptrs with shadows), and by
//     value to a helper;
//   - forward mode through the helper.
//
// GPU-PTX: Inputs/loglik.cu
// REQUIRES: cuda
// RUN: %kinase-cc -O2 --cuda-device-only -S %S/Inputs/loglik.cu -o %t.exe.ptx
// RUN: %ptxas -arch=sm_90 %t.exe.ptx -o %t.cubin
// RUN: %kinase-cc -O0 -I%cuda-root/include %cudainc -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc -O2 -I%cuda-root/include %cudainc -S -emit-llvm %s -o %t.O2.ll
// RUN: FileCheck %s --check-prefix=O2 --input-file=%t.O2.ll
// RUN: %kinase-cc -O2 -I%cuda-root/include %cudainc %s -o %t.exe -lcuda -lm
//
// The structure's pieces, each followed by its shadow's.
// CHECK-LABEL: define {{.*}} @by_value_gradient(
// CHECK: call {{.*}} @__kinase_aug_scale_by_value(i64 [[P0:%[0-9]+]], i64 [[S0:%[0-9]+]], i64 [[P1:%[0-9]+]], i64 [[S1:%[0-9]+]], float
// The fields and their shadows go to the helper's derivative; in the
// reverse sweep the shadows come back from the tape, not as 0.
// CHECK-LABEL: define internal {{.*}} @__kinase_rev_from_fields(
// CHECK-NOT: i64 0,
// CHECK: call {{.*}} @__kinase_rev_launch_scale(
// CHECK-LABEL: define internal {{.*}} @__kinase_aug_from_fields(ptr %0, ptr %1,
// CHECK: [[OUT:%[0-9]+]] = load i64, ptr %0
// CHECK-NEXT: [[DOUT:%[0-9]+]] = load i64, ptr %1
// CHECK: call {{.*}} @__kinase_aug_launch_scale(i64 [[OUT]], i64 [[DOUT]], i64
// O2: call {{.*}}@__kinase_driver_launch_reverse(

#include <cuda.h>
#include <kinase.h>
#include "cu_check.h"
#include "scale_check.h"

enum { B = 3000 };

static CUfunction scale;

struct ScaleBuffers {
  CUdeviceptr out, in;
};

__attribute__((noinline)) void launch_scale(CUdeviceptr out, CUdeviceptr in, float alpha, int n) {
  void *args[] = {&out, &in, &alpha, &n};
  cuLaunchKernel(scale, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL);
}

__attribute__((noinline)) void copy_device(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  cuMemcpyDtoD(dst, src, bytes);
}

void from_fields(const struct ScaleBuffers *buf, float alpha, int n) {
  launch_scale(buf->out, buf->in, alpha, n);
}

void through_helpers(CUdeviceptr out, CUdeviceptr in, float alpha, int n) {
  CUdeviceptr tmp;
  size_t bytes = (size_t)n * sizeof(float);
  cuMemAlloc(&tmp, bytes);
  copy_device(tmp, in, bytes);
  launch_scale(out, tmp, alpha, n);
  cuMemFree(tmp);
}

__attribute__((noinline)) void scale_by_value(struct ScaleBuffers buf, float alpha, int n) {
  void *args[] = {&buf.out, &buf.in, &alpha, &n};
  cuLaunchKernel(scale, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL);
}

void by_value_to_helper(CUdeviceptr out, CUdeviceptr in, float alpha, int n) {
  struct ScaleBuffers buf = {out, in};
  scale_by_value(buf, alpha, n);
}

__attribute__((noinline)) double by_value_gradient(struct ScaleBuffers s, struct ScaleBuffers ds,
                                                   float alpha) {
  return __enzyme_autodiff((void *)scale_by_value, enzyme_dup, s, ds, enzyme_out, alpha,
                           enzyme_const, B);
}

static float in[B], dout[B], out[B];

int main(int argc, char **argv) {
  (void)argc;
  for (int i = 0; i < B; i++) {
    in[i] = 0.01f * (float)(i % 13) - 0.05f;
    dout[i] = 1.0f + (float)(i % 3);
  }
  CUmodule module = require_device_module(argv[0]);
  check_cu(cuModuleGetFunction(&scale, module, "scale"), "cuModuleGetFunction scale");
  const float alpha = 1.5f;
  static const char *const names[] = {"fields", "helpers", "by value", "by value to a helper"};
  for (int k = 0; k < 4; k++) {
    CUdeviceptr d_in = to_device_f(in, B), d_out = device_zeros_f(B);
    CUdeviceptr d_dout = to_device_f(dout, B), d_din = device_zeros_f(B);
    struct ScaleBuffers s = {d_out, d_in}, ds = {d_dout, d_din};
    double dalpha = 0;
    if (k == 0)
      dalpha = __enzyme_autodiff((void *)from_fields, enzyme_dup, &s, &ds, enzyme_out, alpha,
                                 enzyme_const, B);
    else if (k == 1)
      dalpha = __enzyme_autodiff((void *)through_helpers, enzyme_dup, d_out, d_dout, enzyme_dup,
                                 d_in, d_din, enzyme_out, alpha, enzyme_const, B);
    else if (k == 2)
      dalpha = by_value_gradient(s, ds, alpha);
    else
      dalpha = __enzyme_autodiff((void *)by_value_to_helper, enzyme_dup, d_out, d_dout, enzyme_dup,
                                 d_in, d_din, enzyme_out, alpha, enzyme_const, B);
    check_scale(names[k], alpha, dalpha, d_out, d_din, in, dout, B);
  }

  /* Forward mode through the helper, along (tin = dout, t alpha = 0.5):
   * tout = alpha tin + 0.5 in. */
  CUdeviceptr d_in = to_device_f(in, B), d_out = device_zeros_f(B);
  CUdeviceptr d_tin = to_device_f(dout, B), d_tout = device_zeros_f(B);
  struct ScaleBuffers s = {d_out, d_in}, ts = {d_tout, d_tin};
  __enzyme_fwddiff((void *)from_fields, enzyme_dup, &s, &ts, alpha, 0.5f, enzyme_const, B);
  from_device_f(out, d_tout, B);
  for (int i = 0; i < B; i++)
    check_close(out[i], alpha * dout[i] + 0.5 * in[i], 1e-5, "forward: tout[%d]", i);
  return check_exit();
}
