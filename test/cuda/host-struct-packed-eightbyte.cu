// Structs of up to 16 bytes whose float shares an eightbyte with an int,
// as many CUDA programs pass their scalars (`struct {const float *x; float
// a; int n;}`), launched from differentiated host code. The x86-64 C ABI
// passes them to the host stub as integers holding the float's bits; the
// launch is given the caller's struct whole instead (kinase.stubref), so
// the float's adjoint comes back into the struct's shadow:
//   scale: y_i = a x_i               (struct {x, a, n}: 16 bytes)
//          dx_i = a w_i, da = sum x_i w_i
//   shift: y_i = x_i^2 + b           (struct {b, n}: 8 bytes, one i64)
//          dx_i = 2 x_i w_i, db = sum w_i
// both modes; and scale again from a function with a std::vector local,
// where the launch is an invoke.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --check-prefix=O0 --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The launch gets the struct's local and its shadow, and a's adjoint is
// read from the shadow at a's offset.
// CHECK-LABEL: define {{.*}} @_Z10scale_grad
// CHECK: store float %{{.*}}, ptr %[[A:[0-9]+]]
// CHECK: call ptr @__kinase_launch_augment(ptr {{.*}}scale
// CHECK: call void @__kinase_launch_reverse(
// CHECK: %[[DA:[0-9]+]] = getelementptr inbounds nuw i8, ptr %{{[0-9]+}}, i64 8
// CHECK: load float, ptr %[[DA]]
// The invoke of the function with a std::vector local, rewritten the same way.
// O0: invoke {{.*}}@__kinase_aug_kinase.stubref._Z20__device_stub__scale5ScalePf.rv(
// O0: define internal void @kinase.stubref._Z20__device_stub__scale5ScalePf.rv(ptr %0, ptr %1)
// O0: call ptr @__kinase_launch_augment(ptr {{.*}}@_Z20__device_stub__scale5ScalePf,

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 1000, THREADS = 128 };

struct Scale {
  const float *x;
  float a;
  int n;
};

__global__ void scale(Scale p, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n)
    y[i] = p.a * p.x[i];
}

void run_scale(const float *x, float a, float *y, int n) {
  Scale p = {x, a, n};
  scale<<<(n + THREADS - 1) / THREADS, THREADS>>>(p, y);
}

void run_scale_raii(const float *x, float a, float *y, int n) {
  std::vector<float> factor(2, 0.5f);
  Scale p = {x, a * (factor[0] + factor[1]), n};
  scale<<<(n + THREADS - 1) / THREADS, THREADS>>>(p, y);
}

float scale_grad(const float *x, float *dx, float a, float *y, float *dy, int n) {
  return __enzyme_autodiff((void *)run_scale, enzyme_dup, x, dx, enzyme_out, a, enzyme_dupnoneed,
                           y, dy, enzyme_const, n);
}

struct Shift {
  float b;
  int n;
};

__global__ void shift(Shift s, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < s.n)
    y[i] = x[i] * x[i] + s.b;
}

void run_shift(const float *x, float b, float *y, int n) {
  Shift s = {b, n};
  shift<<<(n + THREADS - 1) / THREADS, THREADS>>>(s, x, y);
}

int main(void) {
  require_device();
  static float x[N], w[N], zeros[N], ones[N], got[N];
  for (int i = 0; i < N; i++) {
    x[i] = (float)sin(0.01 * i);
    w[i] = (float)(1.0 + 0.001 * i);
    ones[i] = 1;
  }
  const float a = 1.5f, b = -0.75f;
  float *d_x = to_device(x), *d_y = device_alloc<float>(N), *d_t = device_alloc<float>(N);

  float *d_dx = to_device(zeros), *d_w = to_device(w);
  float da = scale_grad(d_x, d_dx, a, d_y, d_w, N);
  check_kernel("scale reverse");
  from_device(got, d_dx);
  double want_da = 0, want_db = 0;
  for (int i = 0; i < N; i++) {
    check_close(got[i], a * w[i], 1e-6, "scale dx[%d]", i);
    want_da += (double)x[i] * w[i];
    want_db += w[i];
  }
  check_close(da, want_da, 1e-4, "scale da");

  float *d_dx3 = to_device(zeros), *d_w3 = to_device(w);
  float da_raii = __enzyme_autodiff((void *)run_scale_raii, enzyme_dup, d_x, d_dx3, enzyme_out, a,
                                    enzyme_dupnoneed, d_y, d_w3, enzyme_const, N);
  check_kernel("scale (invoke) reverse");
  check_close(da_raii, want_da, 1e-4, "scale (invoke) da");

  float *d_ones = to_device(ones);
  __enzyme_fwddiff((void *)run_scale, enzyme_dup, d_x, d_ones, enzyme_dup, a, 1.0f, enzyme_dup, d_y,
                   d_t, enzyme_const, N);
  check_kernel("scale forward");
  from_device(got, d_t);
  for (int i = 0; i < N; i++)
    check_close(got[i], a + x[i], 1e-6, "scale tangent[%d]", i);

  float *d_dx2 = to_device(zeros), *d_w2 = to_device(w);
  float db = __enzyme_autodiff((void *)run_shift, enzyme_dup, d_x, d_dx2, enzyme_out, b,
                               enzyme_dupnoneed, d_y, d_w2, enzyme_const, N);
  check_kernel("shift reverse");
  from_device(got, d_dx2);
  for (int i = 0; i < N; i++)
    check_close(got[i], 2 * x[i] * w[i], 1e-6, "shift dx[%d]", i);
  check_close(db, want_db, 1e-4, "shift db");

  __enzyme_fwddiff((void *)run_shift, enzyme_dup, d_x, d_ones, enzyme_dup, b, 1.0f, enzyme_dup, d_y,
                   d_t, enzyme_const, N);
  check_kernel("shift forward");
  from_device(got, d_t);
  for (int i = 0; i < N; i++)
    check_close(got[i], 2 * x[i] + 1, 1e-6, "shift tangent[%d]", i);
  device_free_all();
  return check_exit();
}
