// Reverse mode inside kernels (__enzyme_autodiff in device code), the way
// Enzyme's CUDA examples use it:
// - each thread differentiates a __device__ function of its own element
//   (enzyme_dup pointers into global memory);
// - a loop over a shared data array with a parameter every thread shares:
//   the parameter's adjoint is summed over threads with atomic adds;
// - a __noinline__ helper called in the loop (its pair has no tape at all),
//   and a straight-line function with an enzyme_out scalar.
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
// CHECK: .entry _Z9gradientsPKdPdS1_S1_S1_i
// CHECK: {{(atom|red)}}{{.*}}.add.f64

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

enum { N = 1024, M = 16 };

// y = x^2 sin(x), in place
__device__ void square_sin(double *x) { x[0] = x[0] * x[0] * sin(x[0]); }

__device__ __noinline__ double term(double a, double b) { return exp(-a * b) + a * b * b; }

// sum_j term(theta, data[j]) * x
__device__ double loglik(const double *data, const double *theta, double x) {
  double s = 0;
  for (int j = 0; j < M; j++)
    s += term(theta[0], data[j]) * x;
  return s;
}

__device__ double poly(double x) { return 3.0 * x * x * x - x + 2.0; }

__global__ void gradients(const double *data, double *x, double *dx, double *theta, double *dtheta,
                          int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  __enzyme_autodiff((void *)square_sin, enzyme_dup, x + i, dx + i);
  double xi = 0.001 * i;
  // theta is shared by all threads: its adjoint sums over them.
  dx[n + i] = __enzyme_autodiff((void *)loglik, enzyme_const, data, enzyme_dup, theta, dtheta, enzyme_out, xi);
  dx[2 * n + i] = __enzyme_autodiff((void *)poly, enzyme_out, xi);
}

static double h_term(double a, double b) { return exp(-a * b) + a * b * b; }
static double h_term_a(double a, double b) { return -b * exp(-a * b) + b * b; }

int main(void) {
  static double data[M], x[N], x0[N], dx[3 * N], theta[1] = {0.7}, dtheta[1] = {0};
  for (int j = 0; j < M; j++)
    data[j] = 0.1 * j - 0.5;
  for (int i = 0; i < N; i++) {
    x[i] = x0[i] = -2.0 + 4.0 * i / (N - 1);
    dx[i] = 1.0; // the seed: d out / d out
  }
  require_device();
  double *d_data = to_device(data), *d_x = to_device(x), *d_dx = to_device(dx);
  double *d_theta = to_device(theta), *d_dtheta = to_device(dtheta);
  gradients<<<blocks_for(N, 128), 128>>>(d_data, d_x, d_dx, d_theta, d_dtheta, N);
  check_kernel("gradients");
  from_device(x, d_x);
  from_device(dx, d_dx);
  from_device(dtheta, d_dtheta);
  device_free_all();

  double want_theta = 0;
  for (int i = 0; i < N; i++) {
    double v = x0[i], xi = 0.001 * i, sum_term = 0, sum_ta = 0;
    check_close(x[i], v * v * sin(v), 1e-14, "primal x[%d]", i);
    check_close(dx[i], 2 * v * sin(v) + v * v * cos(v), 1e-13, "d square_sin at %g", v);
    for (int j = 0; j < M; j++) {
      sum_term += h_term(theta[0], data[j]);
      sum_ta += h_term_a(theta[0], data[j]);
    }
    check_close(dx[N + i], sum_term, 1e-13, "d loglik / d x at lane %d", i);
    check_close(dx[2 * N + i], 9.0 * xi * xi - 1.0, 1e-13, "d poly at %g", xi);
    want_theta += sum_ta * xi;
  }
  check_close(dtheta[0], want_theta, 1e-11, "d loglik / d theta, summed over %d threads", N);
  return check_exit();
}
