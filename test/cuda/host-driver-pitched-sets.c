// The driver API's 2-D sets on pitched memory, in a plain C program loading
// the PTX Kinase compiled: cuMemAllocPitch, cuMemsetD2D32Async clearing the
// whole pitched output on a stream before the kernel, then
// cuMemsetD2D32 clearing a rectangle inside it (CUdeviceptr arithmetic to
// its corner, its width counted in 4-byte elements, not bytes), and
// cuMemsetD2D8 clearing one row byte by byte. The result goes back into
// host memory pinned with cuMemHostRegister; queries the driver answers
// (cuStreamGetPriority, cuCtxGetStreamPriorityRange, cuFuncSetCacheConfig,
// cuStreamGetFlags) sit among the calls. Gradient with respect to the device
// data (CUdeviceptr, enzyme_dup) and alpha (enzyme_out), analytic: zero inside
// the cleared parts; forward mode too.
//
// GPU-PTX: Inputs/pitched.cu
// REQUIRES: cuda
// RUN: %kinase-cc -O2 --cuda-device-only -S %S/Inputs/pitched.cu -o %t.exe.ptx
// RUN: %ptxas -arch=sm_90 %t.exe.ptx -o %t.cubin
// RUN: %kinase-cc -O0 -I%cuda-root/include %cudainc -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc -O2 -I%cuda-root/include %cudainc -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc -O0 -I%cuda-root/include %cudainc %s -o %t.O0.exe -lcuda -lm
// RUN: %kinase-cc -O2 -I%cuda-root/include %cudainc %s -o %t.exe -lcuda -lm
//
// The sets' reverse (and forward mode) clears the shadow's rows: the
// rectangle's 9 floats are 36 bytes a row; before the width counted in
// elements was scaled, they cleared 9 bytes.
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_
// CHECK: call void @__kinase_copy2d_reverse(ptr null, i64 0, ptr {{%[0-9a-z.]+}}, i64 {{%[0-9a-z.]+}}, i64 36, i64 4, i32 4, ptr null,
// CHECK: call void @__kinase_driver_launch_tangent(
// CHECK: call void @__kinase_copy2d_reverse(ptr null, i64 0, ptr {{%[0-9a-z.]+}}, i64 {{%[0-9a-z.]+}}, i64 36, i64 4, i32 4, ptr null,

#include <cuda.h>
#include <kinase.h>
#include <stdlib.h>
#include <string.h>
#include "cu_check.h"

enum { W = 37, H = 11, R0 = 2, RH = 4, C0 = 5, CW = 9, ROW8 = 8 };

static CUfunction square_pitched;

static float weight(int i) { return 0.5f + 0.02f * (float)(i % 13); }

/* Whether element (x, y) survives the sets after the kernel. */
static int kept(int x, int y) {
  if (y == ROW8)
    return 0;
  return !(y >= R0 && y < R0 + RH && x >= C0 && x < C0 + CW);
}

float cleared_loss(CUdeviceptr d_in, float alpha, int w, int h) {
  CUstream stream;
  cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
  int priority, least, greatest;
  unsigned flags;
  cuStreamGetPriority(stream, &priority);
  cuStreamGetFlags(stream, &flags);
  cuCtxGetStreamPriorityRange(&least, &greatest);
  cuFuncSetCacheConfig(square_pitched, CU_FUNC_CACHE_PREFER_L1);

  CUdeviceptr d_out;
  size_t pitch, in_pitch = w * sizeof(float);
  cuMemAllocPitch(&d_out, &pitch, w * sizeof(float), h, sizeof(float));
  cuMemsetD2D32Async(d_out, pitch, 0, w, h, stream);
  void *args[] = {&d_out, &pitch, &d_in, &in_pitch, &alpha, &w, &h};
  cuLaunchKernel(square_pitched, (w + 31) / 32, (h + 3) / 4, 1, 32, 4, 1, 0, stream, args, NULL);
  cuStreamSynchronize(stream);
  cuMemsetD2D32(d_out + R0 * pitch + C0 * sizeof(float), pitch, 0, CW, RH);
  cuMemsetD2D8(d_out + ROW8 * pitch, pitch, 0, w * sizeof(float), 1);

  size_t bytes = pitch * h;
  float *host = (float *)malloc(bytes);
  cuMemHostRegister(host, bytes, 0);
  cuMemcpyDtoH(host, d_out, bytes);
  float loss = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      loss += weight(y * w + x) * host[y * (pitch / sizeof(float)) + x];
  cuMemHostUnregister(host);
  free(host);
  cuMemFree(d_out);
  cuStreamDestroy(stream);
  return loss;
}

int main(int argc, char **argv) {
  (void)argc;
  CUmodule module = require_device_module(argv[0]);
  check_cu(cuModuleGetFunction(&square_pitched, module, "square_pitched"), "cuModuleGetFunction");
  enum { N = W * H };
  static float x[N], t[N], dx[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.3f * cosf(0.11f * i) + 0.1f;
    t[i] = sinf(0.05f * i + 0.3f);
  }
  const float alpha = 0.75f;
  CUdeviceptr d_x = to_device_f(x, N), d_dx = device_zeros_f(N), d_t = to_device_f(t, N);

  float dalpha = __enzyme_autodiff((void *)cleared_loss, enzyme_dup, d_x, d_dx, enzyme_out, alpha,
                                   enzyme_const, W, enzyme_const, H);
  from_device_f(dx, d_dx, N);
  double want_dalpha = 0, directional = 0;
  for (int y = 0; y < H; y++)
    for (int x_ = 0; x_ < W; x_++) {
      int i = y * W + x_;
      double g = kept(x_, y) ? weight(i) * 2.0 * alpha * x[i] : 0.0;
      check_close(dx[i], g, 1e-5, "d x[%d][%d]", y, x_);
      if (kept(x_, y))
        want_dalpha += weight(i) * (double)x[i] * x[i];
      directional += g * t[i];
    }
  check_close(dalpha, want_dalpha, 1e-4, "d alpha");

  float tangent = __enzyme_fwddiff((void *)cleared_loss, enzyme_dup, d_x, d_t, enzyme_const, alpha,
                                   enzyme_const, W, enzyme_const, H);
  check_close(tangent, directional, 1e-4, "forward mode");
  check_close(cleared_loss(d_x, alpha, W, H), want_dalpha * alpha, 1e-5, "value");
  return check_exit();
}
