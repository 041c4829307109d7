// A grid-stride loop with a per-thread accumulator and one atomicAdd per
// thread at the end, templated on float and double, launched by a host
// function differentiated as a whole: total = sum_i w_i x_i sin(x_i) with
// far fewer threads than elements. The gradient is w_i (sin x_i + x_i cos
// x_i), forward mode along v its dot product with v.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
// RUN: not grep -E "kwhy.*weighted_total" %t.O0.ptx %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
//
// The loop keeps no tape: no device heap.
// CHECK-LABEL: .entry __kinase_krev_{{[a-z]+}}__Z14weighted_totalIfEvPT_PKS0_S3_i(
// CHECK-NOT: malloc
// CHECK: ret;

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

enum { N = 100003, BLOCKS = 13, THREADS = 96 };

template <class T> __global__ void weighted_total(T *total, const T *x, const T *w, int n) {
  T acc = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    acc += w[i] * x[i] * sin(x[i]);
  atomicAdd(total, acc);
}

template <class T> void total_of(T *total, const T *x, const T *w, int n) {
  weighted_total<T><<<BLOCKS, THREADS>>>(total, x, w, n);
}

template <class T> static void check_type(const char *type, double rtol) {
  static T x[N], w[N], v[N], grad[N];
  for (int i = 0; i < N; i++) {
    x[i] = (T)(2 * sin(0.001 * i) + 0.1);
    w[i] = (T)(1 + 0.5 * cos(0.3 * i));
    v[i] = (T)sin(0.05 * i);
  }
  T one = 1, tangent = 0;
  T *d_x = to_device(x), *d_w = to_device(w), *d_v = to_device(v), *d_dx = device_alloc<T>(N);
  T *d_total = device_alloc<T>(1), *d_dtotal = device_alloc<T>(1);
  check_cuda(cudaMemset(d_dx, 0, sizeof grad), "cudaMemset");
  check_cuda(cudaMemset(d_total, 0, sizeof(T)), "cudaMemset");
  check_cuda(cudaMemcpy(d_dtotal, &one, sizeof(T), cudaMemcpyHostToDevice), "seed");
  __enzyme_autodiff((void *)total_of<T>, enzyme_dupnoneed, d_total, d_dtotal, enzyme_dup, d_x, d_dx, enzyme_const, d_w, N);
  check_kernel("reverse");
  from_device(grad, d_dx);
  check_cuda(cudaMemset(d_total, 0, sizeof(T)), "cudaMemset");
  check_cuda(cudaMemset(d_dtotal, 0, sizeof(T)), "cudaMemset");
  __enzyme_fwddiff((void *)total_of<T>, enzyme_dup, d_total, d_dtotal, enzyme_dup, d_x, d_v, enzyme_const, d_w, N);
  check_kernel("forward");
  check_cuda(cudaMemcpy(&tangent, d_dtotal, sizeof(T), cudaMemcpyDeviceToHost), "tangent");
  device_free_all();
  double along = 0;
  for (int i = 0; i < N; i++) {
    double xi = x[i], d = w[i] * (sin(xi) + xi * cos(xi));
    along += d * v[i];
    check_close(grad[i], d, rtol, "%s: d/dx[%d]", type, i);
  }
  check_close(tangent, along, rtol * 100, "%s: tangent", type);
}

int main(void) {
  require_device();
  check_type<float>("float", 1e-5);
  check_type<double>("double", 1e-12);
  return check_exit();
}
