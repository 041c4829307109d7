// Kernels taking a struct by value, launched from differentiated host code,
// in both modes: a 24-byte struct (passed byval on the host) holding a dup
// pointer, a Const pointer, an active float and a count, and a 16-byte one
// (passed as its two eightbytes on the host) holding a pointer and a float.
//   model: out_i = alpha x_i d_i + x_i^2      dx_i = (alpha d_i + 2 x_i) w_i,
//                                             dalpha = sum x_i d_i w_i
//   affine: y_i = v_i x_i + b                  dv_i = x_i w_i, db = sum w_i,
//                                             dx_i = v_i w_i
// The derivative kernels take the shadow struct by value after the struct
// (pointer fields: shadows, a Const one given a scratch shadow by the
// runtime; float fields: tangents) and, in reverse, the accumulator of the
// float fields' adjoints.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// PTX-NOT: __kinase_kwhy_{{.*}}scale_sq
// PTX-LABEL: .entry __kinase_krev_n__Z8scale_sq6ParamsPf(
// PTX-NEXT: .param .align 8 .b8 {{.*}}_param_0[24],
// PTX-NEXT: .param .align 8 .b8 {{.*}}_param_1[24],
// PTX-NEXT: .param .u64 {{.*}}_param_2,
// The float field's adjoint, summed by the thread, goes to the accumulator.
// PTX: atom.global.add.f32 {{.*}}+16]
// PTX-LABEL: .entry __kinase_kfwd_d__Z8scale_sq6ParamsPf(
// PTX-NEXT: .param .align 8 .b8 {{.*}}_param_0[24],
// PTX-NEXT: .param .align 8 .b8 {{.*}}_param_1[24],
// PTX-LABEL: .entry __kinase_krev_dn__Z6affine5SmallPKfPfi(
// PTX-NEXT: .param .align 8 .b8 {{.*}}_param_0[16],
// PTX-NEXT: .param .align 8 .b8 {{.*}}_param_1[16],
// PTX-NEXT: .param .u64 {{.*}}_param_2,
//
// The struct is one argument with its shadow struct beside it, 'd'; the
// 16-byte one is put back together from its pieces, its shadow too.
// CHECK-DAG: call ptr @__kinase_launch_augment(ptr {{.*}}scale_sq{{.*}}@kinase.text.dn
// CHECK-DAG: call ptr @__kinase_launch_augment(ptr {{.*}}affine{{.*}}@kinase.text.ddnc
// CHECK-DAG: call void @__kinase_launch_tangent(ptr {{.*}}scale_sq{{.*}}@kinase.text.dd

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

enum { N = 1000, THREADS = 128 };

struct Params {
  float *x;
  const float *data;
  float alpha;
  int n;
};

__global__ void scale_sq(Params p, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n)
    out[i] = p.alpha * p.x[i] * p.data[i] + p.x[i] * p.x[i];
}

void model(float *x, const float *data, float alpha, int n, float *out) {
  Params p = {x, data, alpha, n};
  scale_sq<<<(n + THREADS - 1) / THREADS, THREADS>>>(p, out);
}

struct Small {
  const float *v;
  float b;
};

__global__ void affine(Small s, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = s.v[i] * x[i] + s.b;
}

void line(const float *v, float b, const float *x, float *y, int n) {
  Small s = {v, b};
  affine<<<(n + THREADS - 1) / THREADS, THREADS>>>(s, x, y, n);
}

int main(void) {
  require_device();
  static float x[N], data[N], w[N], v[N], zeros[N], ones[N], dx[N], dv[N], dout[N];
  for (int i = 0; i < N; i++) {
    x[i] = (float)sin(0.01 * i);
    data[i] = (float)(1.0 + 0.5 * cos(0.03 * i));
    w[i] = (float)(1.0 + 0.001 * i);
    v[i] = (float)(0.5 + 0.25 * sin(0.07 * i));
    ones[i] = 1;
  }
  const float alpha = 1.5f, b = 0.25f;
  float *d_x = to_device(x), *d_data = to_device(data), *d_v = to_device(v);
  float *d_out = device_alloc<float>(N), *d_w = to_device(w), *d_dx = to_device(zeros);
  float *d_dv = to_device(zeros), *d_ones = to_device(ones), *d_tangent = device_alloc<float>(N);

  // model, reverse: x dup, data Const, alpha active, out dupnoneed seeded with w.
  float dalpha = __enzyme_autodiff((void *)model, enzyme_dup, d_x, d_dx, enzyme_const, d_data,
                                   enzyme_out, alpha, enzyme_const, N, enzyme_dupnoneed, d_out, d_w);
  check_kernel("model reverse");
  from_device(dx, d_dx);
  double want_dalpha = 0;
  for (int i = 0; i < N; i++) {
    check_close(dx[i], (alpha * data[i] + 2 * x[i]) * w[i], 1e-5, "model dx[%d]", i);
    want_dalpha += (double)x[i] * data[i] * w[i];
  }
  check_close(dalpha, want_dalpha, 1e-4, "model dalpha");

  // model, forward: tangent 1 along alpha and along every x_i.
  __enzyme_fwddiff((void *)model, enzyme_dup, d_x, d_ones, enzyme_const, d_data, enzyme_dup, alpha,
                   1.0f, enzyme_const, N, enzyme_dup, d_out, d_tangent);
  check_kernel("model forward");
  from_device(dout, d_tangent);
  for (int i = 0; i < N; i++)
    check_close(dout[i], x[i] * data[i] + alpha * data[i] + 2 * x[i], 1e-5, "model tangent[%d]", i);

  // affine, reverse: v dup, b active, x dup, y seeded with w (again: the
  // reverse sweep of model consumed the seed it was given, as Enzyme's does).
  float *d_y = device_alloc<float>(N), *d_dx2 = to_device(zeros), *d_w2 = to_device(w);
  float db = __enzyme_autodiff((void *)line, enzyme_dup, d_v, d_dv, enzyme_out, b, enzyme_dup, d_x,
                               d_dx2, enzyme_dupnoneed, d_y, d_w2, enzyme_const, N);
  check_kernel("line reverse");
  from_device(dv, d_dv);
  from_device(dx, d_dx2);
  double want_db = 0;
  for (int i = 0; i < N; i++) {
    check_close(dv[i], x[i] * w[i], 1e-5, "line dv[%d]", i);
    check_close(dx[i], v[i] * w[i], 1e-5, "line dx[%d]", i);
    want_db += w[i];
  }
  check_close(db, want_db, 1e-4, "line db");
  device_free_all();
  return check_exit();
}
