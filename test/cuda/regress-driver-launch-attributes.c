// cuLaunchKernelEx with launch attributes in a differentiated host function:
// the reverse and forward launches are made with the launch's grid, block,
// stream and the attributes that shape its threads. The kernel scales by the
// number of blocks in its cluster (2, set only by the cluster-dimension
// attribute), so a derivative launch without that attribute would give
// gradients half the right size. A cooperative launch with a priority goes
// through the same path. With the result enzyme_dupnoneed, the primal launch
// is skipped (the output stays untouched) and the gradient is the same.
//
// GPU-PTX: Inputs/launch-attributes.cu
// REQUIRES: cuda
// RUN: %kinase-cc -O2 --cuda-device-only -S %S/Inputs/launch-attributes.cu -o %t.exe.ptx
// RUN: %ptxas -arch=sm_90 %t.exe.ptx -o %t.cubin
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.exe.ptx
// RUN: %kinase-cc -O0 -I%cuda-root/include %cudainc -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc -O2 -I%cuda-root/include %cudainc -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --check-prefix=O2 --input-file=%t.ll
// RUN: %kinase-cc -O2 -I%cuda-root/include %cudainc %s -o %t.exe -lcuda -lm
//
// The reverse kernel reads the cluster's size as the kernel does.
// PTX-LABEL: .entry __kinase_krev_nd_scale_by_cluster(
// PTX: %cluster_nctarank
//
// The forward sweep hands the user's CUlaunchConfig, attributes included, to
// the runtime, which launches in place of the user's cuLaunchKernelEx and
// keeps the configuration for the reverse launch; no cuLaunchKernelEx of
// the user's is left in the augmented sweep.
// CHECK-LABEL: define internal {{.*}} @__kinase_aug_apply_cluster(
// CHECK: [[ATTRS:%[0-9]+]] = alloca [2 x %struct.CUlaunchAttribute_st]
// CHECK: [[CONFIG:%[0-9]+]] = alloca %struct.CUlaunchConfig_st
// CHECK: store ptr [[ATTRS]], ptr
// CHECK: call ptr @__kinase_driver_launch_ex_augment(ptr nonnull [[CONFIG]], {{.*}}, ptr null, ptr nonnull @kinase.text.apply_cluster)
// CHECK-NOT: @cuLaunchKernelEx
// CHECK: ret
// The request with out enzyme_dupnoneed: out's argument slot is unneeded.
// CHECK-LABEL: define internal {{.*}} @__kinase_aug_apply_cluster.{{[0-9]+}}(
// CHECK: [[UNNEEDED:%[0-9]+]] = alloca [2 x ptr]
// CHECK: call ptr @__kinase_driver_launch_ex_augment(ptr nonnull {{%[0-9]+}}, ptr {{%[0-9]+}}, ptr nonnull {{%[0-9]+}}, ptr nonnull {{%[0-9]+}}, ptr nonnull [[UNNEEDED]],
// CHECK-NOT: @cuLaunchKernelEx
// CHECK: ret
// O2-DAG: call {{.*}}ptr @__kinase_driver_launch_ex_augment(ptr nonnull
// O2-DAG: call void @__kinase_driver_launch_reverse(
// O2-DAG: call void @__kinase_driver_launch_ex_tangent(ptr nonnull

#include <cuda.h>
#include <kinase.h>
#include "cu_check.h"

enum { N = 4096, BLOCK = 128, CLUSTER = 2 };

static CUfunction scale_by_cluster;

/* out = alpha * CLUSTER * in, launched in clusters of CLUSTER blocks, high
 * priority. */
void apply_cluster(CUdeviceptr out, CUdeviceptr in, float alpha, int n) {
  CUlaunchAttribute attrs[2];
  attrs[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attrs[0].value.clusterDim.x = CLUSTER;
  attrs[0].value.clusterDim.y = 1;
  attrs[0].value.clusterDim.z = 1;
  attrs[1].id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
  attrs[1].value.priority = -1;
  CUlaunchConfig config = {.gridDimX = (n + BLOCK - 1) / BLOCK, .gridDimY = 1, .gridDimZ = 1,
                           .blockDimX = BLOCK, .blockDimY = 1, .blockDimZ = 1,
                           .attrs = attrs, .numAttrs = 2};
  void *args[] = {&out, &in, &alpha, &n};
  cuLaunchKernelEx(&config, scale_by_cluster, args, NULL);
}

/* out = alpha * in (clusters of one block), a cooperative launch. */
void apply_cooperative(CUdeviceptr out, CUdeviceptr in, float alpha, int n) {
  CUlaunchAttribute attr;
  attr.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
  attr.value.cooperative = 1;
  CUlaunchConfig config = {.gridDimX = (n + BLOCK - 1) / BLOCK, .gridDimY = 1, .gridDimZ = 1,
                           .blockDimX = BLOCK, .blockDimY = 1, .blockDimZ = 1,
                           .attrs = &attr, .numAttrs = 1};
  void *args[] = {&out, &in, &alpha, &n};
  cuLaunchKernelEx(&config, scale_by_cluster, args, NULL);
}

static float in[N], dout[N], tin[N], got[N];

static const float alpha = 1.5f;

/* What a reverse request left, for a function whose factor is `factor`;
 * with `unneeded`, out was enzyme_dupnoneed and must be untouched. */
static void check_gradient(const char *name, double factor, int unneeded, double dalpha,
                           CUdeviceptr d_out, CUdeviceptr d_din, CUdeviceptr d_dout) {
  double want_dalpha = 0;
  from_device_f(got, d_din, N);
  for (int i = 0; i < N; i++) {
    want_dalpha += factor * dout[i] * in[i];
    check_close(got[i], alpha * factor * dout[i], 1e-6, "%s: din[%d]", name, i);
  }
  check_close(dalpha, want_dalpha, 1e-4, "%s: d alpha", name);
  from_device_f(got, d_out, N);
  for (int i = 0; i < N; i++)
    check_close(got[i], unneeded ? 0.0 : alpha * factor * in[i], 1e-6,
                unneeded ? "%s: out[%d] untouched (the primal launch is skipped)" : "%s: out[%d]",
                name, i);
  from_device_f(got, d_dout, N);
  for (int i = 0; i < N; i++)
    check_close(got[i], 0.0, 0.0, "%s: the seed dout[%d] is consumed", name, i);
}

/* Forward mode along (tin, dalpha = 0.5): factor (alpha tin + 0.5 in). */
static void check_tangent(const char *name, double factor, CUdeviceptr d_tout) {
  from_device_f(got, d_tout, N);
  for (int i = 0; i < N; i++)
    check_close(got[i], factor * (alpha * tin[i] + 0.5 * in[i]), 1e-5, "%s: tangent[%d]", name, i);
}

int main(int argc, char **argv) {
  (void)argc;
  CUmodule module = require_device_module(argv[0]);
  check_cu(cuModuleGetFunction(&scale_by_cluster, module, "scale_by_cluster"),
           "cuModuleGetFunction scale_by_cluster");
  for (int i = 0; i < N; i++) {
    in[i] = 0.001f * (float)(i % 97) - 0.03f;
    dout[i] = 1.0f + (float)(i % 3);
    tin[i] = 0.25f - 0.01f * (float)(i % 7);
  }
  CUdeviceptr d_in = to_device_f(in, N), d_tin = to_device_f(tin, N);
  for (int k = 0; k < 3; k++) {
    CUdeviceptr d_out = device_zeros_f(N), d_din = device_zeros_f(N), d_tout = device_zeros_f(N);
    CUdeviceptr d_dout = to_device_f(dout, N);
    double dalpha;
    if (k == 0) {
      dalpha = __enzyme_autodiff((void *)apply_cluster, enzyme_dup, d_out, d_dout, enzyme_dup, d_in,
                                 d_din, enzyme_out, alpha, enzyme_const, N);
      check_gradient("cluster", CLUSTER, 0, dalpha, d_out, d_din, d_dout);
      __enzyme_fwddiff((void *)apply_cluster, enzyme_dup, d_out, d_tout, enzyme_dup, d_in, d_tin,
                       alpha, 0.5f, enzyme_const, N);
      check_tangent("cluster", CLUSTER, d_tout);
    } else if (k == 1) {
      dalpha = __enzyme_autodiff((void *)apply_cluster, enzyme_dupnoneed, d_out, d_dout, enzyme_dup,
                                 d_in, d_din, enzyme_out, alpha, enzyme_const, N);
      check_gradient("cluster, out unneeded", CLUSTER, 1, dalpha, d_out, d_din, d_dout);
    } else {
      dalpha = __enzyme_autodiff((void *)apply_cooperative, enzyme_dup, d_out, d_dout, enzyme_dup,
                                 d_in, d_din, enzyme_out, alpha, enzyme_const, N);
      check_gradient("cooperative", 1, 0, dalpha, d_out, d_din, d_dout);
      __enzyme_fwddiff((void *)apply_cooperative, enzyme_dup, d_out, d_tout, enzyme_dup, d_in,
                       d_tin, alpha, 0.5f, enzyme_const, N);
      check_tangent("cooperative", 1, d_tout);
    }
  }
  return check_exit();
}
