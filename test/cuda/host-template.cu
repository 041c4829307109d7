// Templated kernels launched from a templated host function, for float and
// double: y += a x^2, with y read and written (its adjoint passes through),
// x dup and a active: dx = 2 a x dy, da = sum(dy x^2).
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// One derivative per instantiation.
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_autodiff
// CHECK-DAG: @__kinase_launch_augment(ptr {{.*}}@_Z19__device_stub__axpyIfEvPT_PKS0_S0_i
// CHECK-DAG: @__kinase_launch_augment(ptr {{.*}}@_Z19__device_stub__axpyIdEvPT_PKS0_S0_i

#include <kinase.h>
#include <vector>
#include "cuda_check.h"

template <typename T> __global__ void axpy(T *y, const T *x, T a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] += a * x[i] * x[i];
}

// y += a x^2 for any element type, launched from a template.
template <typename T> void accumulate(T *y, const T *x, T a, int n) {
  const int threads = 128;
  axpy<T><<<(n + threads - 1) / threads, threads>>>(y, x, a, n);
}

template <typename T> static void check_type(const char *name, double rtol) {
  const int n = 999;
  const T a = (T)0.75;
  std::vector<T> x(n), y(n), dy(n);
  for (int i = 0; i < n; i++) {
    x[i] = (T)(0.01 * (i % 50) - 0.2);
    y[i] = (T)(0.1 * (i % 3));
    dy[i] = (T)(1 + i % 4);
  }
  T *d_x = to_device(x), *d_y = to_device(y), *d_dy = to_device(dy), *d_dx = device_alloc<T>(n);
  check_cuda(cudaMemset(d_dx, 0, n * sizeof(T)), "memset");
  double da = __enzyme_autodiff((void *)accumulate<T>, enzyme_dup, d_y, d_dy, enzyme_dup, d_x, d_dx,
                                enzyme_out, a, enzyme_const, n);
  check_kernel(name);
  std::vector<T> dx(n), dy_after(n), y_after(n);
  from_device(dx, d_dx);
  from_device(dy_after, d_dy);
  from_device(y_after, d_y);
  double want = 0;
  for (int i = 0; i < n; i++) {
    want += (double)dy[i] * x[i] * x[i];
    check_close(dx[i], 2.0 * a * x[i] * dy[i], rtol, "%s: dx[%d]", name, i);
    // y += ...: its adjoint passes through unchanged
    check_close(dy_after[i], dy[i], rtol, "%s: dy[%d]", name, i);
    check_close(y_after[i], y[i] + a * x[i] * x[i], rtol, "%s: y[%d]", name, i);
  }
  check_close(da, want, rtol * 10, "%s: d a", name);
}

int main() {
  require_device();
  check_type<float>("float", 1e-5);
  check_type<double>("double", 1e-12);
  return check_exit();
}
