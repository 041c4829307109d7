// Forward mode inside a kernel where everything is float: the data, the
// __device__ functions, the tangents and the entry point's return type. One
// function of two scalars, and one neuron tanhf(b + w . in) with the weights
// an enzyme_dup pointer (a direction v in weight space), the inputs an
// enzyme_const pointer and the bias an enzyme_dup scalar.
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
// No float is widened to double (the promoted variadic arguments are not
// left in the derivative); libdevice's sinf has f64 code of its own.
// CHECK-NOT: __enzyme_fwddiff
// CHECK-NOT: cvt.f64.f32
// CHECK: .entry _Z8tangentsPKfS0_S0_S0_Pfi
// CHECK-NOT: __enzyme_fwddiff
// CHECK-NOT: cvt.f64.f32

#include <math.h>
#include "cuda_check.h"

__device__ int enzyme_dup;
__device__ int enzyme_const;
extern __device__ float __enzyme_fwddiff(void *, ...);

enum { K = 16, NF = 4 };

// f(x, y) = e^x sin y + log(1 + x^2) / sqrt(y) + x^3 y
__host__ __device__ float f(float x, float y) {
  return expf(x) * sinf(y) + logf(1.0f + x * x) / sqrtf(y) + x * x * x * y;
}

__host__ __device__ float neuron(const float *w, const float *in, int n, float b) {
  float s = b;
  for (int k = 0; k < n; k++)
    s += w[k] * in[k];
  return tanhf(s);
}

__global__ void tangents(const float *x, const float *y, const float *w, const float *v,
                         float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float xi = x[i], yi = y[i], in[K];
  for (int k = 0; k < K; k++)
    in[k] = sinf(0.1f * (float)(i + k));
  float b = 0.01f * (float)(i % 50) - 0.25f;
  float *o = out + (size_t)i * NF;
  o[0] = __enzyme_fwddiff((void *)f, enzyme_dup, xi, 1.0f, enzyme_const, yi);
  o[1] = __enzyme_fwddiff((void *)f, enzyme_const, xi, enzyme_dup, yi, 1.0f);
  o[2] = __enzyme_fwddiff((void *)neuron, enzyme_dup, w, v, enzyme_const, in, enzyme_const, K,
                          enzyme_const, b);
  o[3] = __enzyme_fwddiff((void *)neuron, enzyme_dup, w, v, enzyme_const, in, enzyme_const, K,
                          enzyme_dup, b, 2.0f);
}

static double exact_fx(double x, double y) {
  return exp(x) * sin(y) + 2.0 * x / (1.0 + x * x) / sqrt(y) + 3.0 * x * x * y;
}
static double exact_fy(double x, double y) {
  return exp(x) * cos(y) - 0.5 * log(1.0 + x * x) / (y * sqrt(y)) + x * x * x;
}
// The tangent of the neuron in the direction (dw, db) = (v, db).
static double exact_neuron(const float *w, const float *v, const float *in, float b, double db) {
  double s = b, ds = db;
  for (int k = 0; k < K; k++) {
    s += (double)w[k] * in[k];
    ds += (double)v[k] * in[k];
  }
  double t = tanh(s);
  return (1.0 - t * t) * ds;
}

int main(void) {
  enum { N = 1024 };
  static float x[N], y[N], w[K], v[K], out[N * NF];
  for (int i = 0; i < N; i++) {
    x[i] = -1.0f + 2.0f * i / (N - 1);
    y[i] = 0.2f + 2.5f * ((i * 29) % N) / N;
  }
  for (int k = 0; k < K; k++) {
    w[k] = 0.3f * cosf(0.7f * k);
    v[k] = (k % 3) - 1.0f;
  }

  for (int i = 0; i < N; i += 13) {
    float h = 1e-2f;
    double fdx = ((double)f(x[i] + h, y[i]) - f(x[i] - h, y[i])) / (2.0 * h);
    double fdy = ((double)f(x[i], y[i] + h) - f(x[i], y[i] - h)) / (2.0 * h);
    require_exact(exact_fx(x[i], y[i]), fdx, 2e-2, "d f / d x at (%g, %g)", x[i], y[i]);
    require_exact(exact_fy(x[i], y[i]), fdy, 2e-2, "d f / d y at (%g, %g)", x[i], y[i]);
  }

  require_device();
  float *d_x = to_device(x), *d_y = to_device(y), *d_w = to_device(w), *d_v = to_device(v);
  float *d_out = device_alloc(out);
  tangents<<<blocks_for(N, 256), 256>>>(d_x, d_y, d_w, d_v, d_out, N);
  check_kernel("tangents");
  from_device(out, d_out);
  device_free_all();

  static const char *const names[NF] = {"d f / d x", "d f / d y", "neuron, dw = v",
                                        "neuron, dw = v, db = 2"};
  for (int i = 0; i < N; i++) {
    float in[K];
    for (int k = 0; k < K; k++)
      in[k] = sinf(0.1f * (float)(i + k));
    float b = 0.01f * (float)(i % 50) - 0.25f;
    double want[NF] = {exact_fx(x[i], y[i]), exact_fy(x[i], y[i]),
                       exact_neuron(w, v, in, b, 0.0), exact_neuron(w, v, in, b, 2.0)};
    for (int k = 0; k < NF; k++)
      check_close(out[i * NF + k], want[k], 5e-5, "%s at thread %d", names[k], i);
  }
  return check_exit();
}
