// Forward mode inside a kernel, the entry point declared as Enzyme's CUDA
// users often write it: a C++ function template, not a variadic function.
// Its mangled instances (_Z16__enzyme_fwddiffIdJiddiiEET_PvDpT0_, ...) contain
// the name, the return type is the template argument, and the arguments are
// not promoted: a float stays a float.
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
// CHECK: .entry _Z8tangentsPKdPKfPdPfi
// CHECK-NOT: __enzyme_fwddiff

#include <math.h>
#include "cuda_check.h"

__device__ int enzyme_dup;
__device__ int enzyme_const;
template <typename R, typename... Args> __device__ R __enzyme_fwddiff(void *, Args...);

enum { ND = 3, NS = 2 };

// f(x; n) = x^n e^(-x) (n an integer, constant)
__host__ __device__ double f(double x, int n) {
  double p = 1.0;
  for (int k = 0; k < n; k++)
    p *= x;
  return p * exp(-x);
}

__host__ __device__ float g(float x, float y) { return sinf(x * y) + x / (1.0f + y * y); }

// out[0] = x^2 + y, out[1] = x y^3
__host__ __device__ void h(const double *in, double *out) {
  out[0] = in[0] * in[0] + in[1];
  out[1] = in[0] * in[1] * in[1] * in[1];
}

__global__ void tangents(const double *x, const float *y, double *out, float *outf, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double xi = x[i];
  float xf = (float)xi, yf = y[i];
  double *o = out + (size_t)i * ND;
  o[0] = __enzyme_fwddiff<double>((void *)f, enzyme_dup, xi, 1.0, enzyme_const, 3);
  double in[2] = {xi, (double)yf}, din[2] = {1.0, -1.0}, r[2], dr[2];
  __enzyme_fwddiff<void>((void *)h, enzyme_dup, in, din, enzyme_dup, r, dr);
  o[1] = dr[0];
  o[2] = dr[1];
  float *of = outf + (size_t)i * NS;
  of[0] = __enzyme_fwddiff<float>((void *)g, enzyme_dup, xf, 1.0f, enzyme_const, yf);
  of[1] = __enzyme_fwddiff<float>((void *)g, enzyme_const, xf, enzyme_dup, yf, 1.0f);
}

int main(void) {
  enum { N = 500 };
  static double x[N], out[N * ND];
  static float y[N], outf[N * NS];
  for (int i = 0; i < N; i++) {
    x[i] = 0.01 + 4.0 * i / N;
    y[i] = -1.0f + 2.0f * ((i * 13) % N) / N;
  }

  require_device();
  double *d_x = to_device(x), *d_out = device_alloc(out);
  float *d_y = to_device(y), *d_outf = device_alloc(outf);
  tangents<<<blocks_for(N, 128), 128>>>(d_x, d_y, d_out, d_outf, N);
  check_kernel("tangents");
  from_device(out, d_out);
  from_device(outf, d_outf);
  device_free_all();

  static const char *const names[ND + NS] = {"d f / d x (n = 3)", "d h0 (1, -1)", "d h1 (1, -1)",
                                             "d g / d x (float)", "d g / d y (float)"};
  for (int i = 0; i < N; i++) {
    double xd = x[i], xf = (float)x[i], yf = y[i];
    double want[ND + NS] = {
        (3.0 * xd * xd - xd * xd * xd) * exp(-xd),
        2.0 * xd - 1.0,
        yf * yf * yf - 3.0 * xd * yf * yf,
        yf * cos(xf * yf) + 1.0 / (1.0 + yf * yf),
        xf * cos(xf * yf) - 2.0 * xf * yf / ((1.0 + yf * yf) * (1.0 + yf * yf)),
    };
    double got[ND + NS] = {out[i * ND], out[i * ND + 1], out[i * ND + 2], outf[i * NS],
                           outf[i * NS + 1]};
    for (int k = 0; k < ND + NS; k++)
      check_close(got[k], want[k], k < ND ? 1e-12 : 2e-5, "%s at x = %g, y = %g", names[k], x[i],
                  y[i]);
  }
  return check_exit();
}
