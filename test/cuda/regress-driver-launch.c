// Regression: a Const kernel argument through the driver API (Enzyme.jl
// crashed on a Const kernel argument; Enzyme has no rule for cuLaunchKernel).
// A plain C host function launches the seed's batched log-likelihood with
// cuLaunchKernel on a CUfunction from a module Kinase compiled to PTX, its
// device memory passed as CUdeviceptr: logLs enzyme_dupnoneed, thetas
// enzyme_dup, the data x enzyme_const. Per-sample gradients checked against
// the analytic ones, forward mode through the same launch, and the adjoint
// and tangent of an active by-value float argument (alpha), through
// cuLaunchKernel and cuLaunchKernelEx.
//
// GPU-PTX: Inputs/loglik.cu
// REQUIRES: cuda
// RUN: %kinase-cc -O2 --cuda-device-only -S %S/Inputs/loglik.cu -o %t.exe.ptx
// RUN: %ptxas -arch=sm_90 %t.exe.ptx -o %t.cubin
// RUN: %kinase-cc -O0 -I%cuda-root/include %cudainc -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: FileCheck %s --check-prefix=CONST --input-file=%t.O0.ll
// RUN: FileCheck %s --check-prefix=SKIP --input-file=%t.O0.ll
// RUN: %kinase-cc -O2 -I%cuda-root/include %cudainc -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc -O2 -I%cuda-root/include %cudainc %s -o %t.exe -lcuda -lm
//
// In the forward sweep the runtime launches the kernel in place of the
// user's cuLaunchKernel and records the launch; the reverse sweep launches
// the reverse kernel; forward mode launches the forward kernel in its place.
// CHECK-DAG: call {{.*}}ptr @__kinase_driver_launch_augment(
// CHECK-DAG: call void @__kinase_driver_launch_reverse(
// CHECK-DAG: call void @__kinase_driver_launch_tangent(
// CHECK-DAG: call {{.*}}ptr @__kinase_driver_launch_ex_augment(
// CHECK-DAG: call void @__kinase_driver_launch_ex_tangent(
// CHECK-NOT: __enzyme_autodiff
// CHECK-NOT: __enzyme_fwddiff
//
// The shadow of the argument array points to the shadows of the argument
// slots: logLs's and thetas's hold their shadows, the Const data's holds
// null, so the reverse launch passes a null shadow for x (no adjoint, no
// shadow memory). The parameters: logLs, its shadow, thetas, its shadow, x.
// CONST-LABEL: define internal {{.*}} @__kinase_aug_compute_logLs(i64 %0, i64 %1, i64 %2, i64 %3, i64 %4,
// CONST: store i64 %1, ptr
// CONST: store i64 %3, ptr
// CONST: store i64 0, ptr
// CONST: call ptr @__kinase_driver_launch_augment(
//
// logLs (enzyme_dupnoneed) goes into its argument slot and nowhere else: the
// runtime is told that slot is unneeded (a NULL-terminated list), and the
// user's cuLaunchKernel is gone, the runtime launching in its place unless
// everything the kernel writes is unneeded. apply_scale has no such slot.
// SKIP-LABEL: define internal {{.*}} @__kinase_aug_compute_logLs(i64 %0,
// SKIP: [[UNNEEDED:%[0-9]+]] = alloca [2 x ptr]
// SKIP: store i64 %0, ptr [[LOGL:%[0-9]+]]
// SKIP: store ptr [[LOGL]], ptr [[UNNEEDED]]
// SKIP-NEXT: [[END:%[0-9]+]] = getelementptr inbounds nuw i8, ptr [[UNNEEDED]], i64 8
// SKIP-NEXT: store ptr null, ptr [[END]]
// SKIP-NEXT: call ptr @__kinase_driver_launch_augment({{.*}}, ptr nonnull [[UNNEEDED]], ptr nonnull @kinase.text.compute_logLs)
// SKIP-NOT: @cuLaunchKernel
// SKIP: ret
// SKIP-LABEL: define internal {{.*}} @__kinase_aug_apply_scale(
// SKIP: call ptr @__kinase_driver_launch_augment({{.*}}, ptr null, ptr nonnull @kinase.text.apply_scale)
// SKIP-NOT: @cuLaunchKernel
// SKIP: ret

#include <cuda.h>
#include <kinase.h>
#include "cu_check.h"
#include "loglik_grad.h"

enum { B = 4096, N = 64, P = 4 };

static CUfunction loglik, scale;

void compute_logLs(CUdeviceptr logLs, CUdeviceptr thetas, CUdeviceptr x, int n, int b) {
  void *args[] = {&logLs, &thetas, &x, &n, &b};
  cuLaunchKernel(loglik, (b + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL);
}

void apply_scale(CUdeviceptr out, CUdeviceptr in, float alpha, int n) {
  void *args[] = {&out, &in, &alpha, &n};
  cuLaunchKernel(scale, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL);
}

/* The same through cuLaunchKernelEx, its configuration in a struct. */
void apply_scale_ex(CUdeviceptr out, CUdeviceptr in, float alpha, int n) {
  CUlaunchConfig config = {.gridDimX = (n + 127) / 128, .gridDimY = 1, .gridDimZ = 1,
                           .blockDimX = 128, .blockDimY = 1, .blockDimZ = 1};
  void *args[] = {&out, &in, &alpha, &n};
  cuLaunchKernelEx(&config, scale, args, NULL);
}

static float th[B * P], x[2 * N], seed[B], tangent[B * P], grad[B * P], dir[B], seed_after[B];

static void check_loglik(void) {
  for (int i = 0; i < B; i++) {
    double g[P], want_dir = 0;
    loglik_gradient(&th[P * i], x, N, g);
    for (int p = 0; p < P; p++) {
      check_close(grad[P * i + p], g[p], 2e-4, "dlogL[%d]/dtheta[%d]", i, p);
      want_dir += g[p] * tangent[P * i + p];
    }
    check_close(dir[i], want_dir, 2e-4, "tangent of logL[%d]", i);
    check_close(seed_after[i], 0.0, 0.0, "the seed dlogL[%d] is consumed", i);
  }
}

int main(int argc, char **argv) {
  (void)argc;
  CUmodule module = require_device_module(argv[0]);
  check_cu(cuModuleGetFunction(&loglik, module, "loglik"), "cuModuleGetFunction loglik");
  check_cu(cuModuleGetFunction(&scale, module, "scale"), "cuModuleGetFunction scale");
  loglik_data(x, N);
  loglik_thetas(th, B);
  for (int i = 0; i < B; i++) {
    seed[i] = 1.0f;
    for (int p = 0; p < P; p++)
      tangent[P * i + p] = 0.25f * (p + 1) - 0.1f * (i % 3);
  }
  CUdeviceptr d_th = to_device_f(th, B * P), d_dth = device_zeros_f(B * P);
  CUdeviceptr d_x = to_device_f(x, 2 * N), d_logL = device_zeros_f(B);
  CUdeviceptr d_dlogL = to_device_f(seed, B);

  __enzyme_autodiff((void *)compute_logLs, enzyme_dupnoneed, d_logL, d_dlogL, enzyme_dup, d_th,
                    d_dth, enzyme_const, d_x, N, B);
  from_device_f(grad, d_dth, B * P);
  from_device_f(seed_after, d_dlogL, B);
  /* logL was not needed: the primal launch was skipped. */
  static float logL_after[B];
  from_device_f(logL_after, d_logL, B);
  for (int i = 0; i < B; i++)
    check_close(logL_after[i], 0.0, 0.0, "logL[%d] untouched (the primal launch is skipped)", i);

  CUdeviceptr d_t = to_device_f(tangent, B * P), d_dir = device_zeros_f(B);
  __enzyme_fwddiff((void *)compute_logLs, enzyme_dup, d_logL, d_dir, enzyme_dup, d_th, d_t,
                   enzyme_const, d_x, N, B);
  from_device_f(dir, d_dir, B);
  check_loglik();

  /* out = alpha * in over the first B floats of theta: d alpha = sum(dout *
   * in), din = alpha * dout, with dout = 1 + i % 3; forward mode along
   * (t, dalpha = 0.5): alpha t + 0.5 in. */
  static float dout[B], din[B], tout[B];
  for (int i = 0; i < B; i++)
    dout[i] = 1.0f + (float)(i % 3);
  CUdeviceptr d_out = device_zeros_f(B), d_din = device_zeros_f(B), d_tout = device_zeros_f(B);
  const float alpha = 1.5f;
  for (int k = 0; k < 2; k++) {
    CUdeviceptr d_dout = to_device_f(dout, B);
    check_cu(cuMemsetD32(d_din, 0, B), "cuMemsetD32");
    double dalpha =
        k == 0 ? __enzyme_autodiff((void *)apply_scale, enzyme_dup, d_out, d_dout, enzyme_dup, d_th,
                                   d_din, enzyme_out, alpha, enzyme_const, B)
               : __enzyme_autodiff((void *)apply_scale_ex, enzyme_dup, d_out, d_dout, enzyme_dup,
                                   d_th, d_din, enzyme_out, alpha, enzyme_const, B);
    from_device_f(din, d_din, B);
    if (k == 0)
      __enzyme_fwddiff((void *)apply_scale, enzyme_dup, d_out, d_tout, enzyme_dup, d_th, d_t, alpha,
                       0.5f, enzyme_const, B);
    else
      __enzyme_fwddiff((void *)apply_scale_ex, enzyme_dup, d_out, d_tout, enzyme_dup, d_th, d_t,
                       alpha, 0.5f, enzyme_const, B);
    from_device_f(tout, d_tout, B);
    double want = 0;
    for (int i = 0; i < B; i++) {
      want += (1.0 + i % 3) * th[i];
      check_close(din[i], alpha * (1.0 + i % 3), 1e-6, "scale %d: din[%d]", k, i);
      check_close(tout[i], alpha * tangent[i] + 0.5 * th[i], 1e-5, "scale %d: tangent[%d]", k, i);
    }
    check_close(dalpha, want, 1e-4, "scale %d: d alpha", k);
  }
  return check_exit();
}
