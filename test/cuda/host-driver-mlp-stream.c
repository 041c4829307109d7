// A driver-API program as users write one: the PTX Kinase built read from a
// file and loaded with cuModuleLoadData, a stream from cuStreamCreate, and a
// differentiated loss that allocates its activations with cuMemAllocAsync,
// launches two kernels with cuLaunchKernel on the stream (argument arrays of
// CUdeviceptr locals and parameters), copies the outputs back with
// cuMemcpyDtoHAsync, waits with cuStreamSynchronize, reduces on the host
// and frees with cuMemFreeAsync; every call checked by a CU_CHECK macro that
// prints and exits. The parameters are CUdeviceptr marked enzyme_dup, the
// data Const. Checked against central differences and, by the dot-product
// test, against forward mode.
//
// GPU-PTX: Inputs/mlp.cu
// REQUIRES: cuda
// RUN: %kinase-cc -O2 --cuda-device-only -S %S/Inputs/mlp.cu -o %t.exe.ptx
// RUN: %ptxas -arch=sm_90 %t.exe.ptx -o %t.cubin
// RUN: %kinase-cc -O0 -I%cuda-root/include %cudainc -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc -O2 -I%cuda-root/include %cudainc -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc -O0 -I%cuda-root/include %cudainc %s -o %t.O0.exe -lcuda -lm
// RUN: %kinase-cc -O2 -I%cuda-root/include %cudainc %s -o %t.exe -lcuda -lm
//
// CHECK-NOT: call {{.*}}@__enzyme_
// CHECK-DAG: call {{.*}}ptr @__kinase_shadow_alloc(
// CHECK-DAG: call {{.*}}ptr @__kinase_driver_launch_augment(
// CHECK-DAG: call void @__kinase_driver_launch_reverse(
// CHECK-DAG: call void @__kinase_copy_reverse(
// CHECK-DAG: call void @__kinase_driver_launch_tangent(

#include <cuda.h>
#include <kinase.h>
#include <stdio.h>
#include <stdlib.h>
#include "cu_check.h"
#include "mlp_data.h"

#define CU_CHECK(call)                                                                         \
  do {                                                                                         \
    CUresult r_ = (call);                                                                      \
    if (r_ != CUDA_SUCCESS) {                                                                  \
      const char *m_ = "unknown";                                                              \
      cuGetErrorString(r_, &m_);                                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, m_);                                  \
      exit(1);                                                                                 \
    }                                                                                          \
  } while (0)

enum { B = 257, IN = 4, HID = 8 };
static CUfunction dense_tanh, dense_out;
static CUstream stream;

// 0.5 * sum of squared errors
float mlp(CUdeviceptr W, CUdeviceptr bias, CUdeviceptr v, CUdeviceptr x, const float *target) {
  CUdeviceptr h, y;
  CU_CHECK(cuMemAllocAsync(&h, B * HID * sizeof(float), stream));
  CU_CHECK(cuMemAllocAsync(&y, B * sizeof(float), stream));
  int batch = B, in = IN, hid = HID;
  void *first[] = {&h, &x, &W, &bias, &batch, &in, &hid};
  CU_CHECK(cuLaunchKernel(dense_tanh, (B * HID + 127) / 128, 1, 1, 128, 1, 1, 0, stream, first, NULL));
  void *second[] = {&y, &h, &v, &batch, &hid};
  CU_CHECK(cuLaunchKernel(dense_out, (B + 127) / 128, 1, 1, 128, 1, 1, 0, stream, second, NULL));
  float out[B];
  CU_CHECK(cuMemcpyDtoHAsync(out, y, sizeof out, stream));
  CU_CHECK(cuStreamSynchronize(stream));
  float loss = 0;
  for (int b = 0; b < B; b++) {
    float d = out[b] - target[b];
    loss += d * d;
  }
  CU_CHECK(cuMemFreeAsync(h, stream));
  CU_CHECK(cuMemFreeAsync(y, stream));
  return 0.5f * loss;
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    printf("FAIL: cannot open %s\n", path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)n + 1);
  if (!text || fread(text, 1, (size_t)n, f) != (size_t)n) {
    printf("FAIL: cannot read %s\n", path);
    exit(1);
  }
  text[n] = 0;
  fclose(f);
  return text;
}

static void upload(CUdeviceptr d, const float *x, size_t n) { CU_CHECK(cuMemcpyHtoD(d, x, n * sizeof(float))); }

int main(int argc, char **argv) {
  (void)argc;
  require_device_module(argv[0]); /* the context, or exit 2 without a GPU */
  char path[4096];
  snprintf(path, sizeof path, "%s.ptx", argv[0]);
  char *ptx = read_file(path);
  CUmodule module;
  CU_CHECK(cuModuleLoadData(&module, ptx));
  free(ptx);
  CU_CHECK(cuModuleGetFunction(&dense_tanh, module, "dense_tanh"));
  CU_CHECK(cuModuleGetFunction(&dense_out, module, "dense_out"));
  CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

  static float W[HID * IN], bias[HID], v[HID], x[B * IN], t[B], dir[HID * IN];
  mlp_data(W, bias, v, x, t, dir, B, IN, HID);
  CUdeviceptr dW = to_device_f(W, HID * IN), db = to_device_f(bias, HID), dv = to_device_f(v, HID);
  CUdeviceptr dx = to_device_f(x, B * IN), tW = to_device_f(dir, HID * IN);
  CUdeviceptr gW = device_zeros_f(HID * IN), gb = device_zeros_f(HID), gv = device_zeros_f(HID);

  __enzyme_autodiff((void *)mlp, enzyme_dup, dW, gW, enzyme_dup, db, gb, enzyme_dup, dv, gv,
                    enzyme_const, dx, enzyme_const, t);
  CU_CHECK(cuCtxSynchronize());
  float GW[HID * IN], Gb[HID], Gv[HID];
  from_device_f(GW, gW, HID * IN);
  from_device_f(Gb, gb, HID);
  from_device_f(Gv, gv, HID);

  /* central differences, one entry moved on the device at a time */
  float *params[3] = {W, bias, v}, *grads[3] = {GW, Gb, Gv};
  CUdeviceptr devs[3] = {dW, db, dv};
  int sizes[3] = {HID * IN, HID, HID}, strides[3] = {5, 3, 3};
  const char *names[3] = {"W", "bias", "v"};
  for (int p = 0; p < 3; p++)
    for (int k = 0; k < sizes[p]; k += strides[p]) {
      const float h = 1e-2f, keep = params[p][k];
      params[p][k] = keep + h;
      upload(devs[p], params[p], sizes[p]);
      double up = mlp(dW, db, dv, dx, t);
      params[p][k] = keep - h;
      upload(devs[p], params[p], sizes[p]);
      double down = mlp(dW, db, dv, dx, t);
      params[p][k] = keep;
      upload(devs[p], params[p], sizes[p]);
      double want = (up - down) / (2.0 * h);
      check_close(grads[p][k], want, 5e-3, "d/d%s[%d]", names[p], k);
    }

  /* the dot-product test: the gradient . dir against forward mode along dir */
  float along = __enzyme_fwddiff((void *)mlp, enzyme_dup, dW, tW, enzyme_const, db, enzyme_const, dv,
                                 enzyme_const, dx, enzyme_const, t);
  double dot = 0;
  for (int k = 0; k < HID * IN; k++)
    dot += (double)GW[k] * dir[k];
  check_close(along, dot, 1e-4, "forward mode along dir against the gradient");
  return check_exit();
}
