// Forward mode inside a kernel through the single-precision math library:
// sinf, cosf, expf, logf, powf, tanhf, erff and sqrtf are libdevice's
// __nv_*f functions on the device. Tangents are float; the program declares
// a float-returning entry point, as Enzyme's users do for float functions.
// The float arguments of the variadic call arrive promoted to double.
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
// CHECK: .entry _Z8tangentsPKfS0_Pfi
// CHECK-NOT: __enzyme_fwddiff

#include <math.h>
#include "cuda_check.h"

__device__ int enzyme_dup;
__device__ int enzyme_const;
extern __device__ float __enzyme_fwddiff(void *, ...);

__host__ __device__ float f_sinf(float x) { return sinf(x); }
__host__ __device__ float f_cosf(float x) { return cosf(x); }
__host__ __device__ float f_expf(float x) { return expf(x); }
__host__ __device__ float f_logf(float x) { return logf(x); }
__host__ __device__ float f_tanhf(float x) { return tanhf(x); }
__host__ __device__ float f_erff(float x) { return erff(x); }
__host__ __device__ float f_sqrtf(float x) { return sqrtf(x); }
__host__ __device__ float f_powf(float x, float y) { return powf(x, y); }
__host__ __device__ float f_mixf(float x) {
  return expf(sinf(x)) * logf(1.0f + x * x) + tanhf(sqrtf(x)) * erff(x) - powf(x, 2.5f) * cosf(x);
}

enum { NF = 11 };
static const char *const names[NF] = {"sinf", "cosf", "expf", "logf", "tanhf", "erff", "sqrtf",
                                      "powf dx", "powf dy", "powf dx dy", "mixf"};

__global__ void tangents(const float *x, const float *y, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float xi = x[i], yi = y[i];
  float *o = out + (size_t)i * NF;
  o[0] = __enzyme_fwddiff((void *)f_sinf, enzyme_dup, xi, 1.0f);
  o[1] = __enzyme_fwddiff((void *)f_cosf, enzyme_dup, xi, 1.0f);
  o[2] = __enzyme_fwddiff((void *)f_expf, enzyme_dup, xi, 1.0f);
  o[3] = __enzyme_fwddiff((void *)f_logf, enzyme_dup, xi, 1.0f);
  o[4] = __enzyme_fwddiff((void *)f_tanhf, enzyme_dup, xi, 1.0f);
  o[5] = __enzyme_fwddiff((void *)f_erff, enzyme_dup, xi, 1.0f);
  o[6] = __enzyme_fwddiff((void *)f_sqrtf, enzyme_dup, xi, 1.0f);
  o[7] = __enzyme_fwddiff((void *)f_powf, enzyme_dup, xi, 1.0f, enzyme_const, yi);
  o[8] = __enzyme_fwddiff((void *)f_powf, enzyme_const, xi, enzyme_dup, yi, 1.0f);
  o[9] = __enzyme_fwddiff((void *)f_powf, enzyme_dup, xi, 0.5f, enzyme_dup, yi, -2.0f);
  o[10] = __enzyme_fwddiff((void *)f_mixf, enzyme_dup, xi, 1.0f);
}

// Exact derivatives, by hand, in double at the float points.
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

// Central differences on the float host functions: coarse, but enough to
// catch a wrong sign or factor in exact().
static void finite_diff(float x, float y, double *d) {
  float (*f1[])(float) = {f_sinf, f_cosf, f_expf, f_logf, f_tanhf, f_erff, f_sqrtf};
  float h = 1e-2f * x;
  double h2 = (double)(x + h) - (double)(x - h);
  for (int k = 0; k < 7; k++)
    d[k] = ((double)f1[k](x + h) - f1[k](x - h)) / h2;
  d[7] = ((double)f_powf(x + h, y) - f_powf(x - h, y)) / h2;
  float hy = 1e-2f;
  d[8] = ((double)f_powf(x, y + hy) - f_powf(x, y - hy)) / ((double)(y + hy) - (double)(y - hy));
  d[9] = ((double)f_powf(x + 0.5f * hy, y - 2.0f * hy) - f_powf(x - 0.5f * hy, y + 2.0f * hy)) /
         (2.0 * hy);
  d[10] = ((double)f_mixf(x + h) - f_mixf(x - h)) / h2;
}

int main(void) {
  enum { N = 512 };
  static float x[N], y[N], out[N * NF];
  for (int i = 0; i < N; i++) {
    x[i] = 0.1f + 2.9f * i / (N - 1);
    y[i] = -1.5f + 4.0f * ((i * 37) % N) / N;
  }

  for (int i = 0; i < N; i += 7) {
    double e[NF], fd[NF];
    exact(x[i], y[i], e);
    finite_diff(x[i], y[i], fd);
    for (int k = 0; k < NF; k++)
      require_exact(e[k], fd[k], 2e-2, "%s at x = %.9g, y = %.9g", names[k], x[i], y[i]);
  }

  require_device();
  float *d_x = to_device(x), *d_y = to_device(y), *d_out = device_alloc(out);
  tangents<<<blocks_for(N, 128), 128>>>(d_x, d_y, d_out, N);
  check_kernel("tangents");
  from_device(out, d_out);
  device_free_all();

  for (int i = 0; i < N; i++) {
    double e[NF];
    exact(x[i], y[i], e);
    for (int k = 0; k < NF; k++)
      check_close(out[i * NF + k], e[k], 2e-5, "%s at x = %.9g, y = %.9g", names[k], x[i], y[i]);
  }
  return check_exit();
}
