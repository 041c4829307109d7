// The driver API as C programs write it, differentiated: the module loaded
// with cuModuleLoadData from the PTX text in memory, a non-blocking stream,
// cuMemcpyHtoDAsync in, cuMemsetD32Async of the output and of an
// accumulator, a kernel launched on the second half of the data only
// (CUdeviceptr arithmetic, ptr + offset, for both its input and its output)
// with an enzyme_out float in its argument array, a second kernel adding a
// weighted sum into the accumulator, cuMemcpyDtoHAsync out and
// cuStreamSynchronize. Gradients with respect to host data (x and the
// weights, enzyme_dup) and alpha, analytic: zero on the first half; forward
// mode along x and alpha.
//
// GPU-PTX: Inputs/offsets.cu
// REQUIRES: cuda
// RUN: %kinase-cc -O2 --cuda-device-only -S %S/Inputs/offsets.cu -o %t.exe.ptx
// RUN: %ptxas -arch=sm_90 %t.exe.ptx -o %t.cubin
// RUN: %kinase-cc -O0 -I%cuda-root/include %cudainc -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc -O2 -I%cuda-root/include %cudainc -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc -O0 -I%cuda-root/include %cudainc %s -o %t.O0.exe -lcuda -lm
// RUN: %kinase-cc -O2 -I%cuda-root/include %cudainc %s -o %t.exe -lcuda -lm
//
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_
// CHECK-DAG: call void @__kinase_driver_launch_reverse(
// CHECK-DAG: call void @__kinase_driver_launch_tangent(
// CHECK-DAG: call void @__kinase_copy_reverse(

#include <kinase.h>
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char *s_; cuGetErrorString(r_, &s_); \
  fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, s_); exit(1);} } while (0)

static CUfunction k_sq, k_dot;
static CUstream stream;

/* y = alpha x^2 on the second half of x only (CUdeviceptr arithmetic), dot with w */
float loss(const float *x, const float *w, float alpha, int n) {
  CUdeviceptr d_x, d_y, d_w, d_acc;
  int h = n / 2, m = n - h;
  CK(cuMemAlloc(&d_x, n * sizeof(float)));
  CK(cuMemAlloc(&d_y, n * sizeof(float)));
  CK(cuMemAlloc(&d_w, n * sizeof(float)));
  CK(cuMemAlloc(&d_acc, sizeof(float)));
  CK(cuMemcpyHtoDAsync(d_x, x, n * sizeof(float), stream));
  CK(cuMemcpyHtoDAsync(d_w, w, n * sizeof(float), stream));
  CK(cuMemsetD32Async(d_y, 0, n, stream));
  CK(cuMemsetD32Async(d_acc, 0, 1, stream));
  CUdeviceptr y2 = d_y + h * sizeof(float), x2 = d_x + h * sizeof(float);
  void *a1[] = {&y2, &x2, &alpha, &m};
  CK(cuLaunchKernel(k_sq, (m + 63) / 64, 1, 1, 64, 1, 1, 0, stream, a1, NULL));
  void *a2[] = {&d_acc, &d_y, &d_w, &n};
  CK(cuLaunchKernel(k_dot, (n + 63) / 64, 1, 1, 64, 1, 1, 0, stream, a2, NULL));
  float r;
  CK(cuMemcpyDtoHAsync(&r, d_acc, sizeof(float), stream));
  CK(cuStreamSynchronize(stream));
  cuMemFree(d_x); cuMemFree(d_y); cuMemFree(d_w); cuMemFree(d_acc);
  return r;
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb"); if (!f) { perror(path); exit(1); }
  fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
  char *s = malloc(n + 1); if (fread(s, 1, n, f) != (size_t)n) exit(1); s[n] = 0; fclose(f); return s;
}

int main(int argc, char **argv) {
  (void)argc;
  char path[4096]; snprintf(path, sizeof path, "%s.ptx", argv[0]);
  if (cuInit(0) != CUDA_SUCCESS) { printf("NO CUDA DEVICE: cuInit failed\n"); return 2; }
  int count = 0;
  if (cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) { printf("NO CUDA DEVICE: none\n"); return 2; }
  CUdevice dev; CK(cuDeviceGet(&dev, 0)); CUcontext ctx; CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  char *ptx = read_file(path);
  CUmodule mod; CK(cuModuleLoadData(&mod, ptx));
  CK(cuModuleGetFunction(&k_sq, mod, "sq_scale")); CK(cuModuleGetFunction(&k_dot, mod, "dot_w"));
  CK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  enum { N = 41 };
  float x[N], w[N], dx[N] = {0}, dw[N] = {0}, alpha = 1.3f;
  for (int i = 0; i < N; i++) { x[i] = 0.2f + 0.01f * i; w[i] = 1.f + 0.1f * (i % 5); }
  double da = __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_dup, w, dw, enzyme_out, alpha, enzyme_const, N);
  int fails = 0; double ga = 0;
  for (int i = 0; i < N; i++) {
    int live = i >= N / 2;
    double wx = live ? 2 * alpha * x[i] * w[i] : 0, ww = live ? alpha * x[i] * x[i] : 0;
    if (fabs(dx[i] - wx) > 1e-3 * fmax(1, fabs(wx))) { fprintf(stderr, "FAIL dx[%d] %g %g\n", i, dx[i], wx); fails++; }
    if (fabs(dw[i] - ww) > 1e-3 * fmax(1, fabs(ww))) { fprintf(stderr, "FAIL dw[%d] %g %g\n", i, dw[i], ww); fails++; }
    if (live) ga += x[i] * x[i] * w[i];
  }
  if (fabs(da - ga) > 1e-3 * fmax(1, fabs(ga))) { fprintf(stderr, "FAIL dalpha %g %g\n", da, ga); fails++; }
  float tx[N]; for (int i = 0; i < N; i++) tx[i] = (i % 2) ? 1.f : -0.5f;
  double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, tx, enzyme_const, w, enzyme_dup, alpha, 0.5f, enzyme_const, N);
  double gt = 0; for (int i = N / 2; i < N; i++) gt += 2 * alpha * x[i] * w[i] * tx[i] + 0.5 * x[i] * x[i] * w[i];
  if (fabs(t - gt) > 1e-3 * fmax(1, fabs(gt))) { fprintf(stderr, "FAIL fwd %g %g\n", t, gt); fails++; }
  if (!fails) printf("PASS\n");
  return fails != 0;
}
