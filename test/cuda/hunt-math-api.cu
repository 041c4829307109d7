// The CUDA math API in a __device__ function differentiated inside a kernel,
// float and double: sincosf, sincospif, norm3df, rnorm3df, exp10f,
// erfcinvf, normcdff, cbrtf, hypotf, __fdividef, __fmul_rn, __fadd_rd,
// __frcp_rn, __fsqrt_rn, __saturatef, sinpif, rhypotf and their double
// forms (libdevice reduces sinpi's argument with llvm.nvvm.trunc: a step,
// derivative 0). Each thread takes the gradient of f(x, y, z) in reverse
// mode and its derivative along (1, 1, 1) in forward mode; the double ones
// are checked against central differences of the double function computed
// on the GPU, the float ones against the double gradient.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

enum { N = 64 };

extern __device__ float __enzyme_fwddiff_f(void *, ...);
extern __device__ double __enzyme_fwddiff_d(void *, ...);

__device__ float f32(const float *p) {
  float x = p[0], y = p[1], z = p[2], s, c, sp, cp;
  sincosf(x, &s, &c);
  sincospif(0.25f * y, &sp, &cp);
  float a = norm3df(x, y, z) + rnorm3df(x, y, z) + s * c + sp * cp + exp10f(0.1f * x);
  float b = erfcinvf(0.5f + 0.1f * y) + normcdff(z) + cbrtf(x + 2.0f) + hypotf(x, y);
  float d = __fdividef(x, 2.0f + y * y) + __fmul_rn(x, y) + __fadd_rd(x, z) + __frcp_rn(2.0f + x * x);
  float e = __fsqrt_rn(1.0f + z * z) + __saturatef(0.3f * x) + sinpif(0.1f * z) + rhypotf(x, z);
  return a * b + d + e;
}

__device__ double f64(const double *p) {
  double x = p[0], y = p[1], z = p[2], s, c, sp, cp;
  sincos(x, &s, &c);
  sincospi(0.25 * y, &sp, &cp);
  double a = norm3d(x, y, z) + rnorm3d(x, y, z) + s * c + sp * cp + exp10(0.1 * x);
  double b = erfcinv(0.5 + 0.1 * y) + normcdf(z) + cbrt(x + 2.0) + hypot(x, y);
  double d = x / (2.0 + y * y) + __dmul_rn(x, y) + __dadd_rd(x, z) + __drcp_rn(2.0 + x * x);
  double e = __dsqrt_rn(1.0 + z * z) + fmin(fmax(0.3 * x, 0.0), 1.0) + sinpi(0.1 * z) + rhypot(x, z);
  return a * b + d + e;
}

__global__ void gradients(const float *pf, float *gf, float *tf, const double *pd, double *gd,
                          double *td, const float *ones_f, const double *ones_d, double h,
                          double *central) {
  int i = threadIdx.x;
  if (i >= N)
    return;
  __enzyme_autodiff((void *)f32, enzyme_dup, pf + 3 * i, gf + 3 * i);
  __enzyme_autodiff((void *)f64, enzyme_dup, pd + 3 * i, gd + 3 * i);
  tf[i] = __enzyme_fwddiff_f((void *)f32, enzyme_dup, pf + 3 * i, ones_f);
  td[i] = __enzyme_fwddiff_d((void *)f64, enzyme_dup, pd + 3 * i, ones_d);
  for (int k = 0; k < 3; k++) {
    double plus[3] = {pd[3 * i], pd[3 * i + 1], pd[3 * i + 2]};
    double minus[3] = {plus[0], plus[1], plus[2]};
    plus[k] += h;
    minus[k] -= h;
    central[3 * i + k] = (f64(plus) - f64(minus)) / (2 * h);
  }
}

int main(void) {
  require_device();
  static float pf[3 * N], gf[3 * N], tf[N], ones_f[3] = {1, 1, 1};
  static double pd[3 * N], gd[3 * N], td[N], central[3 * N], ones_d[3] = {1, 1, 1};
  for (int i = 0; i < N; i++) {
    pf[3 * i] = (float)(0.4 + 0.02 * i);         /* 0.3 x stays inside (0, 1) */
    pf[3 * i + 1] = (float)(-0.8 + 0.025 * i);
    pf[3 * i + 2] = (float)(0.3 + 0.5 * sin(0.2 * i));
    for (int k = 0; k < 3; k++)
      pd[3 * i + k] = pf[3 * i + k];
  }
  float *d_pf = to_device(pf), *d_gf = to_device(gf), *d_tf = device_alloc<float>(N);
  float *d_ones_f = to_device(ones_f);
  double *d_pd = to_device(pd), *d_gd = to_device(gd), *d_td = device_alloc<double>(N);
  double *d_ones_d = to_device(ones_d), *d_central = device_alloc<double>(3 * N);
  gradients<<<1, N>>>(d_pf, d_gf, d_tf, d_pd, d_gd, d_td, d_ones_f, d_ones_d, 1e-5, d_central);
  check_kernel("gradients");
  from_device(gf, d_gf);
  from_device(tf, d_tf);
  from_device(gd, d_gd);
  from_device(td, d_td);
  from_device(central, d_central);
  for (int i = 0; i < N; i++) {
    double sum = 0;
    for (int k = 0; k < 3; k++) {
      int j = 3 * i + k;
      check_close(gd[j], central[j], 1e-6, "double gradient[%d][%d] vs central differences", i, k);
      check_close(gf[j], gd[j], 2e-3, "float gradient[%d][%d] vs double", i, k);
      sum += gd[j];
    }
    check_close(td[i], sum, 1e-10, "double tangent[%d] vs gradient", i);
    check_close(tf[i], sum, 2e-3, "float tangent[%d] vs double gradient", i);
  }
  device_free_all();
  return check_exit();
}
