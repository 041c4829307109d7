// Forward mode inside a kernel of a __device__ function that calls a helper
// three times, with different active arguments each time (the helper's
// second parameter is constant in one call, active in another). The helper
// is __noinline__, so that the call survives to the derivative at every -O
// level, and a second, inlinable copy is differentiated too. A third function
// calls the first one: a chain of two device-function calls. This test uses
// kinase.h, not its own declarations.
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

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

enum { NF = 6 };

// h(x, a) = a x^2 + sin(x)
__host__ __device__ __noinline__ double helper(double x, double a) { return a * x * x + sin(x); }
__host__ __device__ inline double helper_inline(double x, double a) { return a * x * x + sin(x); }

// f(x, y) = h(x, 2) h(y, x) + h(x y, 0.5)
__host__ __device__ double f(double x, double y) {
  return helper(x, 2.0) * helper(y, x) + helper(x * y, 0.5);
}
__host__ __device__ double f_inline(double x, double y) {
  return helper_inline(x, 2.0) * helper_inline(y, x) + helper_inline(x * y, 0.5);
}
// g(x, y) = exp(-f(x, y) / 10) + f(y, x)
__host__ __device__ __noinline__ double g(double x, double y) {
  return exp(-f(x, y) / 10.0) + f(y, x);
}

__global__ void tangents(const double *x, const double *y, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double xi = x[i], yi = y[i];
  double *o = out + (size_t)i * NF;
  o[0] = __enzyme_fwddiff((void *)f, enzyme_dup, xi, 1.0, enzyme_const, yi);
  o[1] = __enzyme_fwddiff((void *)f, enzyme_const, xi, enzyme_dup, yi, 1.0);
  o[2] = __enzyme_fwddiff((void *)f_inline, enzyme_dup, xi, 1.0, enzyme_const, yi);
  o[3] = __enzyme_fwddiff((void *)f_inline, enzyme_const, xi, enzyme_dup, yi, 1.0);
  o[4] = __enzyme_fwddiff((void *)g, enzyme_dup, xi, 1.0, enzyme_dup, yi, 0.0);
  o[5] = __enzyme_fwddiff((void *)g, enzyme_dup, xi, 0.0, enzyme_dup, yi, 1.0);
}

static double hx(double x, double a) { return 2.0 * a * x + cos(x); }
static double ha(double x, double a) { (void)a; return x * x; }

// The partial derivatives of f.
static void df(double x, double y, double *fx, double *fy) {
  *fx = hx(x, 2.0) * helper(y, x) + helper(x, 2.0) * ha(y, x) + hx(x * y, 0.5) * y;
  *fy = helper(x, 2.0) * hx(y, x) + hx(x * y, 0.5) * x;
}

static void dg(double x, double y, double *gx, double *gy) {
  double fx, fy, rx, ry, e = exp(-f(x, y) / 10.0);
  df(x, y, &fx, &fy);
  df(y, x, &rx, &ry); // partials of f at (y, x)
  *gx = -e * fx / 10.0 + ry;
  *gy = -e * fy / 10.0 + rx;
}

int main(void) {
  enum { N = 700 };
  static double x[N], y[N], out[N * NF];
  for (int i = 0; i < N; i++) {
    x[i] = -2.0 + 4.0 * i / (N - 1);
    y[i] = 1.5 * sin(0.37 * i);
  }

  for (int i = 0; i < N; i += 11) {
    double h = 1e-6, fx, fy, gx, gy;
    df(x[i], y[i], &fx, &fy);
    dg(x[i], y[i], &gx, &gy);
    double fdfx = (f(x[i] + h, y[i]) - f(x[i] - h, y[i])) / (2 * h);
    double fdfy = (f(x[i], y[i] + h) - f(x[i], y[i] - h)) / (2 * h);
    double fdgx = (g(x[i] + h, y[i]) - g(x[i] - h, y[i])) / (2 * h);
    double fdgy = (g(x[i], y[i] + h) - g(x[i], y[i] - h)) / (2 * h);
    require_exact(fx, fdfx, 1e-6, "d f / d x at (%g, %g)", x[i], y[i]);
    require_exact(fy, fdfy, 1e-6, "d f / d y at (%g, %g)", x[i], y[i]);
    require_exact(gx, fdgx, 1e-6, "d g / d x at (%g, %g)", x[i], y[i]);
    require_exact(gy, fdgy, 1e-6, "d g / d y at (%g, %g)", x[i], y[i]);
  }

  require_device();
  double *d_x = to_device(x), *d_y = to_device(y), *d_out = device_alloc(out);
  tangents<<<blocks_for(N, 128), 128>>>(d_x, d_y, d_out, N);
  check_kernel("tangents");
  from_device(out, d_out);
  device_free_all();

  static const char *const names[NF] = {"d f / d x", "d f / d y", "d f_inline / d x",
                                        "d f_inline / d y", "d g / d x", "d g / d y"};
  for (int i = 0; i < N; i++) {
    double want[NF];
    df(x[i], y[i], &want[0], &want[1]);
    want[2] = want[0], want[3] = want[1];
    dg(x[i], y[i], &want[4], &want[5]);
    for (int k = 0; k < NF; k++)
      check_close(out[i * NF + k], want[k], 1e-11, "%s at (%g, %g)", names[k], x[i], y[i]);
  }
  return check_exit();
}
