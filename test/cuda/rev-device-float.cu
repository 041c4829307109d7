// Reverse mode in device code in single precision: a float loss per thread
// over a float weight vector every thread shares (their adjoints summed with
// float atomic adds) and the thread's own input (dup), with expf and
// tanhf from libdevice.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: FileCheck %s --input-file=%t.O0.ptx
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK-NOT: __enzyme_autodiff
// CHECK: {{(atom|red)}}{{.*}}.add.f32

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

enum { N = 2048, W = 4 };

__device__ float loss(const float *w, const float *x) {
  float s = 0.0f;
  for (int k = 0; k < W; k++)
    s += w[k] * tanhf(x[0] * (k + 1));
  return expf(0.1f * s);
}

__global__ void gradients(const float *w, float *dw, const float *x, float *dx) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N)
    __enzyme_autodiff((void *)loss, enzyme_dup, w, dw, enzyme_dup, x + i, dx + i);
}

static double host_loss(const float *w, double x) {
  double s = 0;
  for (int k = 0; k < W; k++)
    s += w[k] * tanh(x * (k + 1));
  return exp(0.1 * s);
}

int main(void) {
  static float w[W] = {0.5f, -1.0f, 0.25f, 2.0f}, dw[W], x[N], dx[N];
  for (int i = 0; i < N; i++)
    x[i] = -1.0f + 2.0f * i / (N - 1);
  require_device();
  float *d_w = to_device(w), *d_dw = to_device(dw), *d_x = to_device(x), *d_dx = to_device(dx);
  gradients<<<blocks_for(N, 256), 256>>>(d_w, d_dw, d_x, d_dx);
  check_kernel("gradients");
  from_device(dw, d_dw);
  from_device(dx, d_dx);
  device_free_all();
  double want_dw[W] = {0};
  for (int i = 0; i < N; i++) {
    double v = x[i], l = host_loss(w, v), ds = 0;
    for (int k = 0; k < W; k++) {
      ds += w[k] * (k + 1) * (1 - tanh(v * (k + 1)) * tanh(v * (k + 1)));
      want_dw[k] += 0.1 * l * tanh(v * (k + 1));
    }
    check_close(dx[i], 0.1 * l * ds, 1e-5, "d loss / d x at %g", v);
  }
  for (int k = 0; k < W; k++)
    check_close(dw[k], want_dw[k], 1e-4, "d loss / d w[%d], summed over %d threads", k, N);
  return check_exit();
}
