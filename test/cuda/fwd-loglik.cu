// Forward mode inside a kernel of a batched log-likelihood: each thread owns
// one parameter pair (mu, log sigma) and K data points, read through an
// enzyme_const pointer, and asks for the tangent of the Gaussian
// log-density summed over its data, with respect to mu, to log sigma and in
// a mixed direction. The same in float, with a float entry point.
//
//   L(mu, s) = sum_k [ -(x_k - mu)^2 / (2 e^(2s)) - s - log(2 pi) / 2 ]
//   dL/dmu   = sum_k (x_k - mu) / e^(2s)
//   dL/ds    = sum_k [ (x_k - mu)^2 / e^(2s) - 1 ]
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
// The data loop reads memory nothing writes: no device malloc for a cache.
// CHECK-NOT: __enzyme_fwddiff
// CHECK-NOT: malloc
// CHECK: .entry _Z7loglikdPKdPK7double2Pdii
// CHECK-NOT: __enzyme_fwddiff
// CHECK-NOT: malloc
// CHECK: .entry _Z7loglikfPKfPK6float2Pfii
// CHECK-NOT: __enzyme_fwddiff
// CHECK-NOT: malloc

#include <math.h>
#include "cuda_check.h"

__device__ int enzyme_dup;
__device__ int enzyme_const;
extern __device__ double __enzyme_fwddiff(void *, ...);
extern __device__ float __enzyme_fwddiff_float(void *, ...);

enum { K = 64, NF = 3 };

__host__ __device__ double gauss_loglik(const double *x, int k, double mu, double log_sigma) {
  double inv_var = exp(-2.0 * log_sigma), s = 0.0;
  for (int j = 0; j < k; j++) {
    double r = x[j] - mu;
    s += -0.5 * r * r * inv_var - log_sigma - 0.91893853320467274178;
  }
  return s;
}

__host__ __device__ float gauss_loglikf(const float *x, int k, float mu, float log_sigma) {
  float sigma = expf(log_sigma), s = 0.0f;
  for (int j = 0; j < k; j++) {
    float z = (x[j] - mu) / sigma;
    s += -0.5f * z * z - log_sigma - 0.918938533f;
  }
  return s;
}

// theta[i] = (mu, log sigma) of thread i; its data are x[i K .. i K + K - 1].
__global__ void loglikd(const double *x, const double2 *theta, double *out, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const double *xi = x + (size_t)i * k;
  double mu = theta[i].x, ls = theta[i].y;
  double *o = out + (size_t)i * NF;
  o[0] = __enzyme_fwddiff((void *)gauss_loglik, enzyme_const, xi, enzyme_const, k, enzyme_dup, mu,
                          1.0, enzyme_dup, ls, 0.0);
  o[1] = __enzyme_fwddiff((void *)gauss_loglik, enzyme_const, xi, enzyme_const, k, enzyme_dup, mu,
                          0.0, enzyme_dup, ls, 1.0);
  o[2] = __enzyme_fwddiff((void *)gauss_loglik, enzyme_const, xi, enzyme_const, k, enzyme_const,
                          mu, enzyme_dup, ls, -0.75);
}

__global__ void loglikf(const float *x, const float2 *theta, float *out, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const float *xi = x + (size_t)i * k;
  float mu = theta[i].x, ls = theta[i].y;
  float *o = out + (size_t)i * NF;
  o[0] = __enzyme_fwddiff_float((void *)gauss_loglikf, enzyme_const, xi, enzyme_const, k,
                                enzyme_dup, mu, 1.0f, enzyme_const, ls);
  o[1] = __enzyme_fwddiff_float((void *)gauss_loglikf, enzyme_const, xi, enzyme_const, k,
                                enzyme_const, mu, enzyme_dup, ls, 1.0f);
  o[2] = __enzyme_fwddiff_float((void *)gauss_loglikf, enzyme_const, xi, enzyme_const, k,
                                enzyme_dup, mu, 0.5f, enzyme_dup, ls, 0.25f);
}

// Exact (dL/dmu, dL/ds), accumulated in double, and the sums of the
// magnitudes of their terms (the scale of the rounding errors).
static void exact(const double *x, int k, double mu, double ls, double *d, double *scale) {
  double inv_var = exp(-2.0 * ls);
  d[0] = d[1] = scale[0] = scale[1] = 0.0;
  for (int j = 0; j < k; j++) {
    double r = x[j] - mu;
    d[0] += r * inv_var;
    d[1] += r * r * inv_var - 1.0;
    scale[0] += fabs(r) * inv_var;
    scale[1] += r * r * inv_var + 1.0;
  }
}

int main(void) {
  enum { N = 2048 };
  static double x[N * K], out[N * NF];
  static float xf[N * K], outf[N * NF];
  static double2 theta[N];
  static float2 thetaf[N];
  // Deterministic pseudo-random data around 1.5 with spread about 0.8.
  unsigned state = 12345u;
  for (int i = 0; i < N * K; i++) {
    double u = 0.0;
    for (int r = 0; r < 4; r++) {
      state = state * 1664525u + 1013904223u;
      u += (state >> 8) * (1.0 / 16777216.0);
    }
    x[i] = 1.5 + 0.8 * 1.7320508 * (u - 2.0);
    xf[i] = (float)x[i];
  }
  for (int i = 0; i < N; i++) {
    theta[i].x = 1.0 + 1.0 * i / N;
    theta[i].y = -0.5 + 1.0 * ((i * 7) % N) / N;
    thetaf[i].x = (float)theta[i].x;
    thetaf[i].y = (float)theta[i].y;
  }

  for (int i = 0; i < N; i += 97) {
    const double *xi = x + (size_t)i * K;
    double mu = theta[i].x, ls = theta[i].y, h = 1e-6, d[2], scale[2];
    exact(xi, K, mu, ls, d, scale);
    double fmu = (gauss_loglik(xi, K, mu + h, ls) - gauss_loglik(xi, K, mu - h, ls)) / (2 * h);
    double fls = (gauss_loglik(xi, K, mu, ls + h) - gauss_loglik(xi, K, mu, ls - h)) / (2 * h);
    require_exact(d[0], fmu, 1e-6, "dL/dmu of thread %d", i);
    require_exact(d[1], fls, 1e-6, "dL/ds of thread %d", i);
  }

  require_device();
  double *d_x = to_device(x), *d_out = device_alloc(out);
  double2 *d_theta = to_device(theta);
  float *d_xf = to_device(xf), *d_outf = device_alloc(outf);
  float2 *d_thetaf = to_device(thetaf);
  loglikd<<<blocks_for(N, 128), 128>>>(d_x, d_theta, d_out, N, K);
  check_kernel("loglikd");
  loglikf<<<blocks_for(N, 128), 128>>>(d_xf, d_thetaf, d_outf, N, K);
  check_kernel("loglikf");
  from_device(out, d_out);
  from_device(outf, d_outf);
  device_free_all();

  static const char *const names[2 * NF] = {
      "double dL/dmu", "double dL/ds", "double -0.75 dL/ds",
      "float dL/dmu",  "float dL/ds",  "float 0.5 dL/dmu + 0.25 dL/ds"};
  for (int i = 0; i < N; i++) {
    double d[2], sd[2], df[2], sf[2], xs[K];
    exact(x + (size_t)i * K, K, theta[i].x, theta[i].y, d, sd);
    // Float: the exact derivative at the float data and parameters.
    for (int j = 0; j < K; j++)
      xs[j] = xf[(size_t)i * K + j];
    exact(xs, K, thetaf[i].x, thetaf[i].y, df, sf);
    double want[2 * NF] = {d[0], d[1], -0.75 * d[1], df[0], df[1], 0.5 * df[0] + 0.25 * df[1]};
    double scale[2 * NF] = {sd[0], sd[1], 0.75 * sd[1], sf[0], sf[1], 0.5 * sf[0] + 0.25 * sf[1]};
    double got[2 * NF] = {out[i * NF], out[i * NF + 1], out[i * NF + 2],
                          outf[i * NF], outf[i * NF + 1], outf[i * NF + 2]};
    // The sums cancel: the rounding error scales with the sum of the
    // magnitudes of the terms, not with the result.
    for (int f = 0; f < 2 * NF; f++)
      check_within(got[f], want[f], (f < NF ? 1e-12 : 2e-5) * fmax(1.0, scale[f]),
                   "%s of thread %d", names[f], i);
  }
  return check_exit();
}
