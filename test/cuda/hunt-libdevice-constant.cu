// libdevice math in a __device__ function, float and double, with
// coefficients in __constant__ memory (cudaMemcpyToSymbol) and the data read
// through __ldg: expf, tanhf, erff, lgammaf, powf, log1pf, fmaxf,
// copysignf, sqrtf, erfcf, atan2f, cbrtf, expm1f, hypotf and their double
// forms. Each thread differentiates f(x_i) in both modes; the double
// derivative is checked against central differences of the double function
// (computed on the GPU), the float one against the double derivative.
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
// The data is read through the non-coherent cache, in the derivative too.
// CHECK-LABEL: .entry _Z9gradientsPKfPfS1_PKdPdS4_S0_S3_S3_S3_dS4_(
// CHECK: ld.global.nc

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

enum { N = 64 };

__constant__ float kf[4];
__constant__ double kd[4];

extern __device__ float __enzyme_fwddiff_f(void *, ...);
extern __device__ double __enzyme_fwddiff_d(void *, ...);

__device__ float f32(const float *p, int i) {
  float x = __ldg(p + i);
  float a = expf(kf[0] * x) + tanhf(x) * erff(x) + lgammaf(x + 2.0f);
  float b = powf(x + 1.5f, kf[1]) + log1pf(x * x) + fmaxf(x, kf[2]) + copysignf(x * x, kf[3]);
  return a * b + sqrtf(x + 2.0f) + erfcf(x) + atan2f(x, 1.5f) + cbrtf(x + 3.0f) + expm1f(x) + hypotf(x, 2.0f);
}

__device__ double f64(const double *p, int i) {
  double x = __ldg(p + i);
  double a = exp(kd[0] * x) + tanh(x) * erf(x) + lgamma(x + 2.0);
  double b = pow(x + 1.5, kd[1]) + log1p(x * x) + fmax(x, kd[2]) + copysign(x * x, kd[3]);
  return a * b + sqrt(x + 2.0) + erfc(x) + atan2(x, 1.5) + cbrt(x + 3.0) + expm1(x) + hypot(x, 2.0);
}

__global__ void gradients(const float *xf, float *gf, float *tf, const double *xd, double *gd, double *td,
                          const float *ones_f, const double *ones_d, const double *x_plus,
                          const double *x_minus, double h, double *central) {
  int i = threadIdx.x;
  if (i >= N)
    return;
  __enzyme_autodiff((void *)f32, enzyme_dup, xf, gf, enzyme_const, i);
  __enzyme_autodiff((void *)f64, enzyme_dup, xd, gd, enzyme_const, i);
  /* Forward mode along x_i: f reads only p[i], so a tangent of ones is the
   * thread's own direction. */
  tf[i] = __enzyme_fwddiff_f((void *)f32, enzyme_dup, xf, ones_f, enzyme_const, i);
  td[i] = __enzyme_fwddiff_d((void *)f64, enzyme_dup, xd, ones_d, enzyme_const, i);
  central[i] = (f64(x_plus, i) - f64(x_minus, i)) / (2 * h);
}

int main(void) {
  require_device();
  const float hf[4] = {0.7f, 1.3f, 0.5f, -1.0f};
  const double hd[4] = {0.7, 1.3, 0.5, -1.0};
  check_cuda(cudaMemcpyToSymbol(kf, hf, sizeof hf), "cudaMemcpyToSymbol");
  check_cuda(cudaMemcpyToSymbol(kd, hd, sizeof hd), "cudaMemcpyToSymbol");
  static float xf[N], zf[N], gf[N], tf[N], onesf[N];
  static double xd[N], zd[N], gd[N], td[N], central[N], onesd[N], plus[N], minus[N];
  const double h = 1e-5;
  for (int i = 0; i < N; i++) { /* (0.1, 0.9), away from fmax's kink at 0.5 */
    xd[i] = 0.1 + 0.8 * (i + 0.5) / N;
    xf[i] = (float)xd[i];
    onesf[i] = 1;
    onesd[i] = 1;
    plus[i] = xd[i] + h;
    minus[i] = xd[i] - h;
  }
  float *d_xf = to_device(xf), *d_gf = to_device(zf), *d_tf = device_alloc<float>(N);
  double *d_xd = to_device(xd), *d_gd = to_device(zd), *d_td = device_alloc<double>(N);
  double *d_central = device_alloc<double>(N);
  gradients<<<1, N>>>(d_xf, d_gf, d_tf, d_xd, d_gd, d_td, to_device(onesf), to_device(onesd),
                      to_device(plus), to_device(minus), h, d_central);
  check_kernel("gradients");
  from_device(gf, d_gf);
  from_device(gd, d_gd);
  from_device(tf, d_tf);
  from_device(td, d_td);
  from_device(central, d_central);
  for (int i = 0; i < N; i++) {
    check_close(gd[i], central[i], 1e-7, "double f'(%g)", xd[i]);
    check_close(td[i], gd[i], 1e-12, "double tangent at %g", xd[i]);
    check_close(gf[i], gd[i], 1e-4, "float f'(%g)", xd[i]);
    check_close(tf[i], gd[i], 1e-4, "float tangent at %g", xd[i]);
  }
  device_free_all();
  return check_exit();
}
