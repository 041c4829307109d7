// A struct with an array field passed by value (cubic coefficients beside
// the data pointer): y_i = c3 x_i^3 + c2 x_i^2 + c1 x_i + c0.
//  - device side: each thread differentiates a __device__ function taking
//    the struct by value (enzyme_dup, p, dp: dp.x receives dy/dx_i), both
//    modes; clang passes the array field to __enzyme_autodiff as one
//    [4 x float] argument, which used to be a located error;
//  - host side: a kernel taking the struct, launched from a differentiated
//    host function that fills the coefficients from active floats: their
//    gradients come back through the shadow struct's array field
//    (dc_k = sum_i x_i^k w_i), and dx_i = (3 c3 x_i^2 + 2 c2 x_i + c1) w_i.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The shadow struct's array field is private to the thread: no atomics
// there (local memory has none), one atomic add per thread into dp.x.
// CHECK-LABEL: .entry _Z9gradients5CubicS_PfS_(
// CHECK-NOT: atom.local
// CHECK: atom.global.add.f32
// CHECK-NOT: atom.global.add.f32
// CHECK: ret;
// The host launch's reverse kernel adds the four coefficients' adjoints.
// CHECK-LABEL: .entry __kinase_krev_n__Z8evaluate5CubicPfi(
// CHECK-COUNT-4: atom.global.add.f32 {{.*}}[%rd{{[0-9]+}}{{(\+[0-9]+)?}}],

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

enum { N = 512, THREADS = 128 };

struct Cubic {
  float c[4];
  const float *x;
};

__device__ float cubic(Cubic p, int i) {
  float x = p.x[i];
  return ((p.c[3] * x + p.c[2]) * x + p.c[1]) * x + p.c[0];
}

extern __device__ float __enzyme_fwddiff_f(void *, ...);

__global__ void gradients(Cubic p, Cubic dp, float *tangent, Cubic along) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N)
    return;
  __enzyme_autodiff((void *)cubic, enzyme_dup, p, dp, enzyme_const, i);
  tangent[i] = __enzyme_fwddiff_f((void *)cubic, enzyme_dup, p, along, enzyme_const, i);
}

__global__ void evaluate(Cubic p, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = cubic(p, i);
}

void model(const float *x, float *y, float c0, float c1, float c2, float c3, int n) {
  Cubic p;
  p.c[0] = c0;
  p.c[1] = c1;
  p.c[2] = c2;
  p.c[3] = c3;
  p.x = x;
  evaluate<<<(n + THREADS - 1) / THREADS, THREADS>>>(p, y, n);
}

struct Coefficients {
  float c0, c1, c2, c3;
};
template <typename T> T __enzyme_autodiff(void *, ...);

int main(void) {
  require_device();
  static float x[N], w[N], zeros[N], ones[N], dx[N], tangent[N];
  const float c[4] = {0.5f, -1.0f, 0.75f, 0.25f};
  for (int i = 0; i < N; i++) {
    x[i] = (float)(-1.0 + 2.0 * i / N);
    w[i] = (float)(1.0 + 0.002 * i);
    ones[i] = 1;
  }
  float *d_x = to_device(x), *d_dx = to_device(zeros), *d_ones = to_device(ones);
  float *d_t = device_alloc<float>(N), *d_w = to_device(w), *d_y = device_alloc<float>(N);
  Cubic p = {{c[0], c[1], c[2], c[3]}, d_x}, dp = {{0, 0, 0, 0}, d_dx};
  Cubic along = {{0, 0, 0, 0}, d_ones};
  gradients<<<(N + THREADS - 1) / THREADS, THREADS>>>(p, dp, d_t, along);
  check_kernel("gradients");
  from_device(dx, d_dx);
  from_device(tangent, d_t);
  for (int i = 0; i < N; i++) {
    double slope = (3.0 * c[3] * x[i] + 2.0 * c[2]) * x[i] + c[1];
    check_close(dx[i], slope, 1e-5, "device dy/dx[%d]", i);
    check_close(tangent[i], slope, 1e-5, "device tangent[%d]", i);
  }

  float *d_dx2 = to_device(zeros);
  Coefficients g = __enzyme_autodiff<Coefficients>(
      (void *)model, enzyme_dup, d_x, d_dx2, enzyme_dupnoneed, d_y, d_w, enzyme_out, c[0], enzyme_out,
      c[1], enzyme_out, c[2], enzyme_out, c[3], enzyme_const, N);
  check_kernel("model reverse");
  from_device(dx, d_dx2);
  double want[4] = {0, 0, 0, 0};
  for (int i = 0; i < N; i++) {
    double slope = (3.0 * c[3] * x[i] + 2.0 * c[2]) * x[i] + c[1];
    check_close(dx[i], slope * w[i], 1e-5, "host dx[%d]", i);
    for (int k = 0; k < 4; k++)
      want[k] += pow((double)x[i], k) * w[i];
  }
  check_close(g.c0, want[0], 1e-4, "dc0");
  check_close(g.c1, want[1], 1e-4, "dc1");
  check_close(g.c2, want[2], 1e-4, "dc2");
  check_close(g.c3, want[3], 1e-4, "dc3");
  device_free_all();
  return check_exit();
}
