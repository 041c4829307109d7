// Device-side requests declared the C++ way, a variadic template
// (`template <typename R, typename... A> __device__ R __enzyme_autodiff(void *,
// A...)`), on __device__ functions taking a struct by value: the template
// passes the struct whole (a byval pointer), where a C `...` passes its
// fields. Such a call used to be refused ("the arguments for parameter 2
// ... a struct passed by value, do not match its fields"). The struct is
// enzyme_const (coefficients and a loop count) in reverse and forward mode,
// and enzyme_dup with a shadow struct, whose pointer field carries the
// gradient to memory. Checked against central differences.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK-NOT: call {{.*}}@_Z17__enzyme_autodiff
// CHECK-NOT: call {{.*}}@_Z16__enzyme_fwddiff

#include <math.h>
#include <vector>
#include "cuda_check.h"

__device__ int enzyme_dup, enzyme_const;
template <typename R, typename... A> __device__ R __enzyme_autodiff(void *, A...);
template <typename R, typename... A> __device__ R __enzyme_fwddiff(void *, A...);

enum { N = 300, K = 6 };

struct Coeffs {
  double a, b;
  int terms;
};

struct Weighted {
  const float *w; // each thread's K weights
  float scale;
  int k;
};

__device__ double softplus(double v) { return log1p(exp(v)); }

__device__ double energy(const double *x, Coeffs c) {
  double s = 0.0;
  for (int k = 0; k < c.terms; k++) {
    double sn, cs;
    sincos(c.a * x[k], &sn, &cs);
    s += softplus(c.b * sn) + 0.5 * cs * cs;
  }
  return s;
}

__device__ float weighted(const float *x, Weighted p) {
  float s = 0.f;
  for (int k = 0; k < p.k; k++)
    s += p.w[k] * tanhf(p.scale * x[k]);
  return s;
}

__global__ void gradients(const double *xs, double *gs, Coeffs c, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n)
    __enzyme_autodiff<void>((void *)energy, enzyme_dup, xs + t * K, gs + t * K, enzyme_const, c);
}

__global__ void tangents(const double *xs, double *ts, Coeffs c, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  double dir[K];
  for (int k = 0; k < K; k++)
    dir[k] = 1.0 + 0.1 * k;
  ts[t] = __enzyme_fwddiff<double>((void *)energy, enzyme_dup, xs + t * K, dir, enzyme_const, c);
}

__global__ void weight_gradients(const float *xs, const float *ws, float *gws, float scale, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  Weighted p = {ws + t * K, scale, K}, dp = {gws + t * K, 0.f, K};
  __enzyme_autodiff<void>((void *)weighted, enzyme_const, xs + t * K, enzyme_dup, p, dp);
}

static double host_energy(const double *x, Coeffs c) {
  double s = 0.0;
  for (int k = 0; k < c.terms; k++)
    s += log1p(exp(c.b * sin(c.a * x[k]))) + 0.5 * cos(c.a * x[k]) * cos(c.a * x[k]);
  return s;
}

int main() {
  require_device();
  Coeffs c = {1.3, 0.7, K};
  std::vector<double> x(N * K), g(N * K, 0.0), t(N);
  std::vector<float> xf(N * K), w(N * K), gw(N * K, 0.0f);
  for (int i = 0; i < N * K; i++) {
    x[i] = 1.5 * sin(0.37 * i);
    xf[i] = (float)cos(0.21 * i);
    w[i] = 0.5f + 0.25f * (float)sin(0.11 * i);
  }
  double *d_x = to_device(x), *d_g = to_device(g), *d_t = device_alloc<double>(N);
  gradients<<<blocks_for(N, 128), 128>>>(d_x, d_g, c, N);
  check_kernel("gradients");
  tangents<<<blocks_for(N, 128), 128>>>(d_x, d_t, c, N);
  check_kernel("tangents");
  from_device(g, d_g);
  from_device(t, d_t);
  float *d_xf = to_device(xf), *d_w = to_device(w), *d_gw = to_device(gw);
  const float scale = 0.8f;
  weight_gradients<<<blocks_for(N, 64), 64>>>(d_xf, d_w, d_gw, scale, N);
  check_kernel("weight_gradients");
  from_device(gw, d_gw);
  const double h = 1e-6;
  for (int i = 0; i < N; i += 7) {
    double want_t = 0.0;
    for (int k = 0; k < K; k++) {
      std::vector<double> p(x.begin() + i * K, x.begin() + (i + 1) * K), m = p;
      p[k] += h;
      m[k] -= h;
      double fd = (host_energy(p.data(), c) - host_energy(m.data(), c)) / (2 * h);
      check_close(g[i * K + k], fd, 1e-6, "g[%d][%d]", i, k);
      want_t += (1.0 + 0.1 * k) * fd;
      check_close(gw[i * K + k], tanh((double)scale * xf[i * K + k]), 1e-5, "gw[%d][%d]", i, k);
    }
    check_close(t[i], want_t, 1e-6, "t[%d]", i);
  }
  device_free_all();
  return check_exit();
}
