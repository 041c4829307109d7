// Forward mode inside a kernel through the double-precision math library:
// in device code sin, cos, exp, log, pow, tanh, erf and sqrt are libdevice's
// __nv_* functions, and their derivatives call libdevice too (the tangent
// of __nv_sin calls __nv_cos). Each thread differentiates every function at
// its own point; the host checks the tangents against the exact derivatives.
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
// CHECK-NOT: __enzyme_fwddiff
// CHECK: .entry _Z8tangentsPKdS0_Pdi
// CHECK-NOT: __enzyme_fwddiff

#include <math.h>
#include "cuda_check.h"

__device__ int enzyme_dup;
__device__ int enzyme_const;
extern __device__ double __enzyme_fwddiff(void *, ...);

// The functions are __host__ __device__ so that the host can check its own
// exact derivatives against finite differences before trusting them.
__host__ __device__ double f_sin(double x) { return sin(x); }
__host__ __device__ double f_cos(double x) { return cos(x); }
__host__ __device__ double f_exp(double x) { return exp(x); }
__host__ __device__ double f_log(double x) { return log(x); }
__host__ __device__ double f_tanh(double x) { return tanh(x); }
__host__ __device__ double f_erf(double x) { return erf(x); }
__host__ __device__ double f_sqrt(double x) { return sqrt(x); }
__host__ __device__ double f_pow(double x, double y) { return pow(x, y); }
__host__ __device__ double f_mix(double x) {
  return exp(sin(x)) * log(1.0 + x * x) + tanh(sqrt(x)) * erf(x) - pow(x, 2.5) * cos(x);
}

enum { NF = 11 };
static const char *const names[NF] = {"sin", "cos", "exp", "log", "tanh", "erf", "sqrt",
                                      "pow dx", "pow dy", "pow dx dy", "mix"};

__global__ void tangents(const double *x, const double *y, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double xi = x[i], yi = y[i];
  double *o = out + (size_t)i * NF;
  o[0] = __enzyme_fwddiff((void *)f_sin, enzyme_dup, xi, 1.0);
  o[1] = __enzyme_fwddiff((void *)f_cos, enzyme_dup, xi, 1.0);
  o[2] = __enzyme_fwddiff((void *)f_exp, enzyme_dup, xi, 1.0);
  o[3] = __enzyme_fwddiff((void *)f_log, enzyme_dup, xi, 1.0);
  o[4] = __enzyme_fwddiff((void *)f_tanh, enzyme_dup, xi, 1.0);
  o[5] = __enzyme_fwddiff((void *)f_erf, enzyme_dup, xi, 1.0);
  o[6] = __enzyme_fwddiff((void *)f_sqrt, enzyme_dup, xi, 1.0);
  o[7] = __enzyme_fwddiff((void *)f_pow, enzyme_dup, xi, 1.0, enzyme_const, yi);
  o[8] = __enzyme_fwddiff((void *)f_pow, enzyme_const, xi, enzyme_dup, yi, 1.0);
  o[9] = __enzyme_fwddiff((void *)f_pow, enzyme_dup, xi, 0.5, enzyme_dup, yi, -2.0);
  o[10] = __enzyme_fwddiff((void *)f_mix, enzyme_dup, xi, 1.0);
}

// Exact derivatives, by hand.
static void exact(double x, double y, double *d) {
  const double two_over_sqrt_pi = 1.1283791670955126;
  double t = tanh(x), p = pow(x, y);
  d[0] = cos(x);
  d[1] = -sin(x);
  d[2] = exp(x);
  d[3] = 1.0 / x;
  d[4] = 1.0 - t * t;
  d[5] = two_over_sqrt_pi * exp(-x * x);
  d[6] = 0.5 / sqrt(x);
  d[7] = y * pow(x, y - 1.0);
  d[8] = p * log(x);
  d[9] = 0.5 * d[7] - 2.0 * d[8];
  double s = sqrt(x), ts = tanh(s), q = 1.0 + x * x;
  d[10] = exp(sin(x)) * cos(x) * log(q) + exp(sin(x)) * 2.0 * x / q +
          (1.0 - ts * ts) * 0.5 / s * erf(x) + ts * two_over_sqrt_pi * exp(-x * x) -
          2.5 * pow(x, 1.5) * cos(x) + pow(x, 2.5) * sin(x);
}

// The same derivatives by central differences on the host functions.
static void finite_diff(double x, double y, double *d) {
  double (*f1[])(double) = {f_sin, f_cos, f_exp, f_log, f_tanh, f_erf, f_sqrt};
  double h = 1e-6 * fmax(1.0, fabs(x));
  for (int k = 0; k < 7; k++)
    d[k] = (f1[k](x + h) - f1[k](x - h)) / (2 * h);
  d[7] = (f_pow(x + h, y) - f_pow(x - h, y)) / (2 * h);
  d[8] = (f_pow(x, y + h) - f_pow(x, y - h)) / (2 * h);
  d[9] = (f_pow(x + 0.5 * h, y - 2.0 * h) - f_pow(x - 0.5 * h, y + 2.0 * h)) / (2 * h);
  d[10] = (f_mix(x + h) - f_mix(x - h)) / (2 * h);
}

int main(void) {
  enum { N = 512 };
  static double x[N], y[N], out[N * NF];
  for (int i = 0; i < N; i++) {
    x[i] = 0.1 + 2.9 * i / (N - 1);
    y[i] = -1.5 + 4.0 * ((i * 37) % N) / N;
  }

  for (int i = 0; i < N; i += 7) {
    double e[NF], fd[NF];
    exact(x[i], y[i], e);
    finite_diff(x[i], y[i], fd);
    for (int k = 0; k < NF; k++)
      require_exact(e[k], fd[k], 1e-6, "%s at x = %g, y = %g", names[k], x[i], y[i]);
  }

  require_device();
  double *d_x = to_device(x), *d_y = to_device(y), *d_out = device_alloc(out);
  tangents<<<blocks_for(N, 128), 128>>>(d_x, d_y, d_out, N);
  check_kernel("tangents");
  from_device(out, d_out);
  device_free_all();

  for (int i = 0; i < N; i++) {
    double e[NF];
    exact(x[i], y[i], e);
    for (int k = 0; k < NF; k++)
      check_close(out[i * NF + k], e[k], 1e-12, "%s at x = %g, y = %g", names[k], x[i], y[i]);
  }
  return check_exit();
}
