// A grid-stride map kernel templated on its functor, launched from host
// functions that pass a __device__ lambda capturing a by-value float
// (softplus with an active beta) and a functor struct with an active field
// (a polynomial): the lambda's and the functor's captured floats are fields
// of the kernel's by-value parameter, whose adjoints come back summed.
//   softplus: y_i = log(1 + exp(beta x_i)) / beta
//   poly:     y_i = a x_i^2 + 2 x_i
// against analytic derivatives, reverse mode.
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
// CHECK-DAG: .entry __kinase_krev_{{[a-z]+}}__Z10map_kernelIZ12softplus_all
// CHECK-DAG: .entry __kinase_krev_{{[a-z]+}}__Z10map_kernelI4PolyEvPKfPfiT_(

#include "cuda_check.h"
#include <kinase.h>
#include <vector>
template <typename T> T __enzyme_autodiff(void *, ...);
template <typename F>
__global__ void map_kernel(const float *x, float *y, int n, F f) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    y[i] = f(x[i]);
}
template <typename F> void map(const float *x, float *y, int n, F f) {
  map_kernel<<<8, 128>>>(x, y, n, f);
}
void softplus_all(const float *x, float *y, int n, float beta) {
  map(x, y, n,
      [=] __device__(float v) { return logf(1.0f + expf(beta * v)) / beta; });
}
struct Poly {
  float a, b;
  __device__ float operator()(float v) const { return a * v * v + b * v; }
};
void poly_all(const float *x, float *y, int n, float a) {
  map(x, y, n, Poly{a, 2.0f});
}
int main() {
  require_device();
  const int n = 3000;
  std::vector<float> x(n), w(n), dx(n);
  for (int i = 0; i < n; i++) {
    x[i] = sinf(0.01f * i);
    w[i] = cosf(0.02f * i);
  }
  float *d_x = to_device(x), *d_dx = device_alloc<float>(n),
        *d_y = device_alloc<float>(n), *d_w = to_device(w);
  float beta = 1.5f;
  float dbeta = __enzyme_autodiff<float>((void *)softplus_all, enzyme_dup, d_x,
                                         d_dx, enzyme_dupnoneed, d_y, d_w,
                                         enzyme_const, n, enzyme_out, beta);
  check_kernel("softplus");
  from_device(dx, d_dx);
  double want_dbeta = 0;
  for (int i = 0; i < n; i++) {
    double v = x[i], e = exp(beta * v), sp = log1p(e) / beta;
    double s = e / (1 + e);
    check_close(dx[i], w[i] * s, 1e-4, "softplus dx[%d]", i);
    want_dbeta += w[i] * (v * s / beta - sp / beta);
  }
  check_close(dbeta, want_dbeta, 1e-3, "softplus dbeta");
  float *d_w2 = to_device(w), *d_dx2 = device_alloc<float>(n);
  float da = __enzyme_autodiff<float>((void *)poly_all, enzyme_dup, d_x, d_dx2,
                                      enzyme_dupnoneed, d_y, d_w2, enzyme_const,
                                      n, enzyme_out, 0.5f);
  check_kernel("poly");
  from_device(dx, d_dx2);
  double want_da = 0;
  for (int i = 0; i < n; i++) {
    check_close(dx[i], w[i] * (2 * 0.5 * x[i] + 2.0), 1e-4, "poly dx[%d]", i);
    want_da += w[i] * x[i] * x[i];
  }
  check_close(da, want_da, 1e-3, "poly da");
  device_free_all();
  return check_exit();
}
