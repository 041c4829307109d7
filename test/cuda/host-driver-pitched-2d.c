// Pitched arrays through the driver API, in a plain C program loading the
// PTX Kinase compiled: cuMemAllocPitch, cuMemcpy2D of packed device data
// into a pitched array (a CUDA_MEMCPY2D on the stack, device to device), a
// kernel on a 2-D grid indexing rows by pitch, cuMemcpy2DAsync of the
// pitched result into a packed host buffer on a stream, a weighted sum on
// the host. Gradient with respect to the device data (CUdeviceptr,
// enzyme_dup) and to alpha (enzyme_out), analytic; forward mode too.
//
// GPU-PTX: Inputs/pitched.cu
// REQUIRES: cuda
// RUN: %kinase-cc -O2 --cuda-device-only -S %S/Inputs/pitched.cu -o %t.exe.ptx
// RUN: %ptxas -arch=sm_90 %t.exe.ptx -o %t.cubin
// RUN: %kinase-cc -O0 -I%cuda-root/include %cudainc -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc -O2 -I%cuda-root/include %cudainc -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc -O2 -I%cuda-root/include %cudainc %s -o %t.exe -lcuda -lm
//
// The copies' descriptors and their shadows (which hold the shadows of the
// CUdeviceptrs and host pointers stored in them) go to the runtime, which
// records the shadows' rows in the forward sweep and adds them in reverse,
// after which the record is freed.
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_
// CHECK-DAG: call ptr @__kinase_copy2d_record(ptr {{.*}}, ptr {{.*}}, ptr null,
// CHECK-DAG: call ptr @__kinase_copy2d_record(ptr {{.*}}, ptr {{.*}}, ptr {{%[0-9a-z.]+}},
// CHECK-DAG: call void @__kinase_copy2d_record_reverse(ptr [[RECORD:%[0-9]+]],
// CHECK-DAG: call void @free(ptr [[RECORD]])
// CHECK-DAG: call void @__kinase_copy2d_tangent(ptr
// CHECK-DAG: call {{.*}}ptr @__kinase_shadow_alloc(

#include <cuda.h>
#include <kinase.h>
#include <stdlib.h>
#include <string.h>
#include "cu_check.h"

enum { W = 45, H = 9 };

static CUfunction square_pitched;

static float weight(int i) { return 0.25f + 0.01f * (float)(i % 17); }

float pitched_loss(CUdeviceptr d_x, float alpha, int w, int h) {
  CUdeviceptr d_in, d_out;
  size_t in_pitch, out_pitch, row = w * sizeof(float);
  cuMemAllocPitch(&d_in, &in_pitch, row, h, sizeof(float));
  cuMemAllocPitch(&d_out, &out_pitch, row, h, sizeof(float));

  CUDA_MEMCPY2D in;
  memset(&in, 0, sizeof in);
  in.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  in.srcDevice = d_x;
  in.srcPitch = row;
  in.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  in.dstDevice = d_in;
  in.dstPitch = in_pitch;
  in.WidthInBytes = row;
  in.Height = h;
  cuMemcpy2D(&in);

  void *args[] = {&d_out, &out_pitch, &d_in, &in_pitch, &alpha, &w, &h};
  cuLaunchKernel(square_pitched, (w + 31) / 32, (h + 3) / 4, 1, 32, 4, 1, 0, NULL, args, NULL);

  float *host = (float *)malloc(row * h);
  CUstream stream;
  cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
  CUDA_MEMCPY2D out = {0};
  out.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  out.srcDevice = d_out;
  out.srcPitch = out_pitch;
  out.dstMemoryType = CU_MEMORYTYPE_HOST;
  out.dstHost = host;
  out.dstPitch = row;
  out.WidthInBytes = row;
  out.Height = h;
  cuMemcpy2DAsync(&out, stream);
  cuStreamSynchronize(stream);
  float loss = 0;
  for (int i = 0; i < w * h; i++)
    loss += weight(i) * host[i];
  free(host);
  cuStreamDestroy(stream);
  cuMemFree(d_in);
  cuMemFree(d_out);
  return loss;
}

int main(int argc, char **argv) {
  (void)argc;
  CUmodule module = require_device_module(argv[0]);
  check_cu(cuModuleGetFunction(&square_pitched, module, "square_pitched"), "cuModuleGetFunction");
  enum { N = W * H };
  static float x[N], t[N], dx[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.4f * sinf(0.05f * i) + 0.2f;
    t[i] = cosf(0.07f * i);
  }
  const float alpha = 1.5f;
  CUdeviceptr d_x = to_device_f(x, N), d_dx = device_zeros_f(N), d_t = to_device_f(t, N);

  float dalpha = __enzyme_autodiff((void *)pitched_loss, enzyme_dup, d_x, d_dx, enzyme_out, alpha,
                                   enzyme_const, W, enzyme_const, H);
  from_device_f(dx, d_dx, N);
  double want_dalpha = 0, directional = 0;
  for (int i = 0; i < N; i++) {
    double g = weight(i) * 2.0 * alpha * x[i];
    check_close(dx[i], g, 1e-5, "d x[%d]", i);
    want_dalpha += weight(i) * (double)x[i] * x[i];
    directional += g * t[i];
  }
  check_close(dalpha, want_dalpha, 1e-4, "d alpha");

  float tangent = __enzyme_fwddiff((void *)pitched_loss, enzyme_dup, d_x, d_t, enzyme_const, alpha,
                                   enzyme_const, W, enzyme_const, H);
  check_close(tangent, directional, 1e-4, "forward mode");
  check_close(pitched_loss(d_x, alpha, W, H), want_dalpha * alpha, 1e-5, "value");
  return check_exit();
}
