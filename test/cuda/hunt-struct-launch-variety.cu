// Structs passed by value to kernels, launched other ways: through
// cudaLaunchKernel with an argument array (the struct's address in it), and
// a templated struct of doubles through <<<>>>, reverse and forward mode.
//   k:  out_i = x_i (alpha + d_i)        dx_i = (alpha + d_i) w_i, dalpha = sum x_i w_i
//   kt: out_i = a x_i^2                  dx_i = 2 a x_i w_i,   da = sum x_i^2 w_i
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --check-prefix=HOST --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The double field's adjoint is added as a double; the float field of the
// other struct sits at offset 12, between its pointers (pointer words 0 and 16).
// CHECK-DAG: __kinase_kinfo__Z1k7ShiftedPf[28] = {75, 73, 78, 49, 2, 0, 0, 0, {{[0-9]+}}, 0, 0, 0, 24, 0, 2, 4, 8, 0, {{[0-9]+}}, 0, 5};
// CHECK-LABEL: .entry __kinase_krev_n__Z2ktIdEv2TPIT_EPS1_(
// CHECK: atom.global.add.f64 {{.*}}+8]
// The argument array's struct slot has a shadow struct beside it, its
// Const pointer field null; the float field's adjoint is read back from it.
// HOST-DAG: call ptr @__kinase_direct_launch_augment(
// HOST-DAG: call void @__kinase_driver_launch_reverse(

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

enum { N = 700, THREADS = 128 };

struct Shifted {
  const float *data;
  int n;
  float alpha;
  float *x;
};

__global__ void k(Shifted p, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n)
    out[i] = p.x[i] * (p.alpha + p.data[i]);
}

void direct(float *x, const float *data, float alpha, int n, float *out) {
  Shifted p = {data, n, alpha, x};
  void *args[] = {&p, &out};
  cudaLaunchKernel((const void *)k, dim3((n + THREADS - 1) / THREADS), dim3(THREADS), args, 0, 0);
}

template <typename T> struct TP {
  T *x;
  T a;
  int n;
};

template <typename T> __global__ void kt(TP<T> p, T *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n)
    out[i] = p.a * p.x[i] * p.x[i];
}

template <typename T> void squares(T *x, T a, int n, T *out) {
  TP<T> p{x, a, n};
  kt<T><<<(n + THREADS - 1) / THREADS, THREADS>>>(p, out);
}

int main(void) {
  require_device();
  static float x[N], data[N], w[N], zeros[N], dx[N];
  static double xd[N], wd[N], zd[N], ones[N], dxd[N];
  for (int i = 0; i < N; i++) {
    x[i] = (float)cos(0.02 * i);
    data[i] = (float)(0.5 + 0.25 * sin(0.05 * i));
    w[i] = (float)(1.0 - 0.0005 * i);
    xd[i] = sin(0.013 * i) + 0.1;
    wd[i] = 1.0 + 0.001 * i;
    ones[i] = 1.0;
  }
  const float alpha = 0.75f;
  float *d_x = to_device(x), *d_data = to_device(data), *d_w = to_device(w), *d_dx = to_device(zeros);
  float *d_out = device_alloc<float>(N);
  float dalpha = __enzyme_autodiff((void *)direct, enzyme_dup, d_x, d_dx, enzyme_const, d_data,
                                   enzyme_out, alpha, enzyme_const, N, enzyme_dupnoneed, d_out, d_w);
  check_kernel("direct reverse");
  from_device(dx, d_dx);
  double want = 0;
  for (int i = 0; i < N; i++) {
    check_close(dx[i], (alpha + data[i]) * w[i], 1e-5, "direct dx[%d]", i);
    want += (double)x[i] * w[i];
  }
  check_close(dalpha, want, 1e-4, "direct dalpha");

  const double a = 1.25;
  double *d_xd = to_device(xd), *d_wd = to_device(wd), *d_dxd = to_device(zd), *d_od = device_alloc<double>(N);
  double da = __enzyme_autodiff((void *)squares<double>, enzyme_dup, d_xd, d_dxd, enzyme_out, a,
                                enzyme_const, N, enzyme_dupnoneed, d_od, d_wd);
  check_kernel("squares reverse");
  from_device(dxd, d_dxd);
  double want_da = 0;
  for (int i = 0; i < N; i++) {
    check_close(dxd[i], 2 * a * xd[i] * wd[i], 1e-12, "squares dx[%d]", i);
    want_da += xd[i] * xd[i] * wd[i];
  }
  check_close(da, want_da, 1e-12, "squares da");

  // Forward: tangent 1 along a and along every x_i.
  double *d_ones = to_device(ones), *d_t = device_alloc<double>(N);
  __enzyme_fwddiff((void *)squares<double>, enzyme_dup, d_xd, d_ones, enzyme_dup, a, 1.0, enzyme_const, N,
                   enzyme_dup, d_od, d_t);
  check_kernel("squares forward");
  from_device(dxd, d_t);
  for (int i = 0; i < N; i++)
    check_close(dxd[i], xd[i] * xd[i] + 2 * a * xd[i], 1e-12, "squares tangent[%d]", i);
  device_free_all();
  return check_exit();
}
