// CUdeviceptrs inside structures and arrays in differentiated driver-API
// host code. A CUdeviceptr read out of memory passed enzyme_dup (a field of
// a structure, an element of an array) and used as device memory (stored
// into a launch's argument slot, given to a copy) has its shadow at the same
// place in the shadow memory, as a pointer there would: before, it was taken
// as a number, Const, and the gradient silently lost. Cases:
//   - struct Buffers {logLs, thetas, x} by pointer, its shadow holding
//     dlogLs, dthetas and 0 for the Const data (the seed's log-likelihood);
//   - kernelParams pointing straight into the fields of such a structure
//     (and its tangent in forward mode);
//   - an array CUdeviceptr bufs[2] passed by pointer;
//   - a local CUdeviceptr tmp[2] filled by cuMemAlloc and copies.
//
// GPU-PTX: Inputs/loglik.cu
// REQUIRES: cuda
// RUN: %kinase-cc -O2 --cuda-device-only -S %S/Inputs/loglik.cu -o %t.exe.ptx
// RUN: %ptxas -arch=sm_90 %t.exe.ptx -o %t.cubin
// RUN: %kinase-cc -O0 -I%cuda-root/include %cudainc -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc -O2 -I%cuda-root/include %cudainc %s -o %t.exe -lcuda -lm
//
// A field read from the structure has its shadow read from the same place in
// the shadow structure, which goes into the argument slot's shadow.
// CHECK-LABEL: define internal {{.*}} @__kinase_aug_compute_logLs_struct(ptr %0, ptr %1,
// CHECK: [[LOGL:%[0-9]+]] = load i64, ptr %0
// CHECK-NEXT: [[DLOGL:%[0-9]+]] = load i64, ptr %1
// CHECK-NEXT: store i64 [[LOGL]], ptr
// CHECK-NEXT: store i64 [[DLOGL]], ptr
// CHECK: call ptr @__kinase_driver_launch_augment(
// The elements of a local array filled by cuMemAlloc have shadows too.
// CHECK-LABEL: define internal {{.*}} @__kinase_aug_scale_through_temporaries(
// CHECK: call ptr @__kinase_shadow_alloc(
// CHECK: call ptr @__kinase_shadow_alloc(
// CHECK: call ptr @__kinase_driver_launch_augment(

#include <cuda.h>
#include <kinase.h>
#include "cu_check.h"
#include "scale_check.h"
#include "loglik_grad.h"

enum { B = 2048, N = 64, P = 4 };

static CUfunction loglik, scale;

struct Buffers {
  CUdeviceptr logLs, thetas, x;
};

void compute_logLs_struct(const struct Buffers *buf, int n, int b) {
  CUdeviceptr logLs = buf->logLs, thetas = buf->thetas, x = buf->x;
  void *args[] = {&logLs, &thetas, &x, &n, &b};
  cuLaunchKernel(loglik, (b + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL);
}

struct ScaleBuffers {
  CUdeviceptr out, in;
};

/* out = alpha * in, kernelParams pointing into the structure. */
void scale_fields(struct ScaleBuffers *buf, float alpha, int n) {
  void *args[] = {&buf->out, &buf->in, &alpha, &n};
  cuLaunchKernel(scale, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL);
}

/* The same from an array {out, in}. */
void scale_array(const CUdeviceptr *bufs, float alpha, int n) {
  CUdeviceptr out = bufs[0], in = bufs[1];
  void *args[] = {&out, &in, &alpha, &n};
  cuLaunchKernel(scale, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL);
}

/* out = alpha * in through two temporaries in a local array. */
void scale_through_temporaries(CUdeviceptr out, CUdeviceptr in, float alpha, int n) {
  CUdeviceptr tmp[2];
  size_t bytes = (size_t)n * sizeof(float);
  cuMemAlloc(&tmp[0], bytes);
  cuMemAlloc(&tmp[1], bytes);
  cuMemcpyDtoD(tmp[0], in, bytes);
  void *args[] = {&tmp[1], &tmp[0], &alpha, &n};
  cuLaunchKernel(scale, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL);
  cuMemcpyDtoD(out, tmp[1], bytes);
  cuMemFree(tmp[0]);
  cuMemFree(tmp[1]);
}

static float th[B * P], x[2 * N], seed[B], grad[B * P], seed_after[B];
static float in[B], dout[B], out[B];

static void check_loglik(void) {
  for (int i = 0; i < B; i++) {
    double g[P];
    loglik_gradient(&th[P * i], x, N, g);
    for (int p = 0; p < P; p++)
      check_close(grad[P * i + p], g[p], 2e-4, "struct: dlogL[%d]/dtheta[%d]", i, p);
    check_close(seed_after[i], 0.0, 0.0, "struct: the seed dlogL[%d] is consumed", i);
  }
}

int main(int argc, char **argv) {
  (void)argc;
  for (int i = 0; i < B; i++) {
    seed[i] = 1.0f;
    in[i] = 0.01f * (float)(i % 13) - 0.05f;
    dout[i] = 1.0f + (float)(i % 3);
  }
  CUmodule module = require_device_module(argv[0]);
  check_cu(cuModuleGetFunction(&loglik, module, "loglik"), "cuModuleGetFunction loglik");
  check_cu(cuModuleGetFunction(&scale, module, "scale"), "cuModuleGetFunction scale");
  loglik_data(x, N);
  loglik_thetas(th, B);

  struct Buffers buf = {device_zeros_f(B), to_device_f(th, B * P), to_device_f(x, 2 * N)};
  struct Buffers dbuf = {to_device_f(seed, B), device_zeros_f(B * P), 0};
  __enzyme_autodiff((void *)compute_logLs_struct, enzyme_dup, &buf, &dbuf, enzyme_const, N,
                    enzyme_const, B);
  from_device_f(grad, dbuf.thetas, B * P);
  from_device_f(seed_after, dbuf.logLs, B);
  check_loglik();

  const float alpha = 1.5f;
  for (int k = 0; k < 3; k++) {
    CUdeviceptr d_in = to_device_f(in, B), d_out = device_zeros_f(B);
    CUdeviceptr d_dout = to_device_f(dout, B), d_din = device_zeros_f(B);
    double dalpha;
    if (k == 0) {
      struct ScaleBuffers s = {d_out, d_in}, ds = {d_dout, d_din};
      dalpha = __enzyme_autodiff((void *)scale_fields, enzyme_dup, &s, &ds, enzyme_out, alpha,
                                 enzyme_const, B);
      check_scale("fields", alpha, dalpha, d_out, d_din, in, dout, B);
      /* Forward mode along (tin = dout, dalpha = 0.5): alpha tin + 0.5 in. */
      CUdeviceptr d_tout = device_zeros_f(B);
      struct ScaleBuffers ts = {d_tout, d_dout};
      check_cu(cuMemcpyHtoD(d_dout, dout, B * sizeof(float)), "copy");
      __enzyme_fwddiff((void *)scale_fields, enzyme_dup, &s, &ts, alpha, 0.5f, enzyme_const, B);
      from_device_f(out, d_tout, B);
      for (int i = 0; i < B; i++)
        check_close(out[i], alpha * dout[i] + 0.5 * in[i], 1e-5, "fields: tangent[%d]", i);
    } else if (k == 1) {
      CUdeviceptr bufs[2] = {d_out, d_in}, dbufs[2] = {d_dout, d_din};
      dalpha = __enzyme_autodiff((void *)scale_array, enzyme_dup, bufs, dbufs, enzyme_out, alpha,
                                 enzyme_const, B);
      check_scale("array", alpha, dalpha, d_out, d_din, in, dout, B);
    } else {
      dalpha = __enzyme_autodiff((void *)scale_through_temporaries, enzyme_dup, d_out, d_dout,
                                 enzyme_dup, d_in, d_din, enzyme_out, alpha, enzyme_const, B);
      check_scale("temporaries", alpha, dalpha, d_out, d_din, in, dout, B);
    }
  }
  return check_exit();
}
