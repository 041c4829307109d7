// CUDA's fast and rounded intrinsic functions, what -ffast-math
// (-use_fast_math) makes of expf, logf, sinf, powf, and the NVVM intrinsics
// under them (ex2.approx, lg2.approx, sin/cos.approx, div.approx, rsqrt,
// saturate, fmin/fmax, the rounded add/mul/fma/div/rcp/sqrt): gradients in
// float and double, by reverse and forward mode, both inside a kernel on a
// __device__ function and for a kernel launched from host code, against
// central differences of the exact functions in double. Tolerances are those
// of the approximations (about 2^-21 relative).
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O2 -ffast-math -fcuda-flush-denormals-to-zero --cuda-device-only -S %s -o %t.fast.ptx
// RUN: %ptxas -arch=sm_90 %t.fast.ptx -o %t.fast.cubin
// RUN: FileCheck %s --check-prefix=FAST --input-file=%t.fast.ptx
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The derivatives use the fast instructions too: the reverse kernel of the
// float kernel has the approximate ones and no libdevice call left.
// CHECK-LABEL: .entry __kinase_krev_nd__Z11fast_kernelPfPKfi(
// CHECK-DAG:     ex2.approx
// CHECK-DAG:     lg2.approx
// CHECK-DAG:     sin.approx.f32
// CHECK-DAG:     cos.approx.f32
// CHECK-DAG:     div.approx.f32
// CHECK-DAG:     rsqrt.approx.f32
// CHECK:         ret;
// CHECK-NOT: __enzyme_autodiff
//
// With -ffast-math and flushed denormals, plain expf, logf, sinf, powf become
// the fast functions, and the ftz forms of the intrinsics appear.
// FAST-LABEL: .entry __kinase_krev_nd__Z11libm_kernelPfPKfi(
// FAST-DAG:     ex2.approx.ftz.f32
// FAST-DAG:     lg2.approx.ftz.f32
// FAST-DAG:     sin.approx.ftz.f32
// FAST:         ret;

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

extern __device__ float __enzyme_fwddiff_f(void *, ...);
extern __device__ double __enzyme_fwddiff_d(void *, ...);

enum { N = 256, THREADS = 64 };

// p = {x, y}, y > 0.5.
__device__ float fast(const float *p) {
  float x = p[0], y = p[1];
  return __expf(0.5f * x) * __logf(y) + __fdividef(x, y) + __sinf(x) * __cosf(y) + __powf(y, x) +
         __saturatef(0.3f * x) + __tanf(0.2f * x) + __exp10f(0.1f * x) + __log2f(y) +
         __log10f(y) + rsqrtf(y) + __frsqrt_rn(y) + __fsqrt_rn(y) + __fsqrt_rz(y) +
         __fdiv_rn(x, y) + __frcp_rn(y) + __fmaf_rn(x, y, x) + __fmul_rz(x, y) +
         __fadd_rd(x, y) + __fsub_rn(x, y) + fminf(x, y) + fmaxf(x, y) + fabsf(x);
}
static double fast_exact(double x, double y) {
  return exp(0.5 * x) * log(y) + x / y + sin(x) * cos(y) + pow(y, x) + fmin(fmax(0.3 * x, 0.0), 1.0) +
         tan(0.2 * x) + pow(10.0, 0.1 * x) + log2(y) + log10(y) + 2 / sqrt(y) + 2 * sqrt(y) +
         x / y + 1 / y + (x * y + x) + x * y + (x + y) + (x - y) + fmin(x, y) + fmax(x, y) + fabs(x);
}

// The same through plain libm names: the precise functions here, the fast
// ones under -ffast-math (the FAST checks).
__device__ float libm(const float *p) {
  float x = p[0], y = p[1];
  return expf(0.5f * x) * logf(y) + x / y + sinf(x) * cosf(y) + powf(y, x);
}
static double libm_exact(double x, double y) {
  return exp(0.5 * x) * log(y) + x / y + sin(x) * cos(y) + pow(y, x);
}

__device__ double rounded(const double *p) {
  double x = p[0], y = p[1];
  return __dsqrt_rn(y) + __ddiv_rn(x, y) + __drcp_rn(y) + __fma_rn(x, y, x) + __dadd_rz(x, y) +
         __dmul_rn(x, y) + rsqrt(y) + fmin(x, y) + fmax(x, y) + fabs(x);
}
static double rounded_exact(double x, double y) {
  return sqrt(y) + x / y + 1 / y + (x * y + x) + (x + y) + x * y + 1 / sqrt(y) + fmin(x, y) +
         fmax(x, y) + fabs(x);
}

__global__ void fast_kernel(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = fast(in + 2 * i);
}
__global__ void libm_kernel(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = libm(in + 2 * i);
}
__global__ void rounded_kernel(double *out, const double *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = rounded(in + 2 * i);
}

void run_fast(float *out, const float *in, int n) { fast_kernel<<<blocks_for(n, THREADS), THREADS>>>(out, in, n); }
void run_libm(float *out, const float *in, int n) { libm_kernel<<<blocks_for(n, THREADS), THREADS>>>(out, in, n); }
void run_rounded(double *out, const double *in, int n) {
  rounded_kernel<<<blocks_for(n, THREADS), THREADS>>>(out, in, n);
}

// Device side: grad[2i..2i+1] by reverse mode, tan[2i..2i+1] by forward
// mode along each axis.
__global__ void device_float(const float *in, float *grad, float *tan, int which) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N)
    return;
  const float *p = in + 2 * i;
  float ex[2] = {1, 0}, ey[2] = {0, 1};
  if (which == 0) {
    __enzyme_autodiff((void *)fast, enzyme_dup, p, grad + 2 * i);
    tan[2 * i] = __enzyme_fwddiff_f((void *)fast, enzyme_dup, p, ex);
    tan[2 * i + 1] = __enzyme_fwddiff_f((void *)fast, enzyme_dup, p, ey);
  } else {
    __enzyme_autodiff((void *)libm, enzyme_dup, p, grad + 2 * i);
    tan[2 * i] = __enzyme_fwddiff_f((void *)libm, enzyme_dup, p, ex);
    tan[2 * i + 1] = __enzyme_fwddiff_f((void *)libm, enzyme_dup, p, ey);
  }
}
__global__ void device_double(const double *in, double *grad, double *tan) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N)
    return;
  const double *p = in + 2 * i;
  double ex[2] = {1, 0}, ey[2] = {0, 1};
  __enzyme_autodiff((void *)rounded, enzyme_dup, p, grad + 2 * i);
  tan[2 * i] = __enzyme_fwddiff_d((void *)rounded, enzyme_dup, p, ex);
  tan[2 * i + 1] = __enzyme_fwddiff_d((void *)rounded, enzyme_dup, p, ey);
}

// Points away from the kinks of min, max, |x| and saturate.
template <class T> static void points(T (&in)[2 * N]) {
  for (int i = 0; i < N; i++) {
    double x = -1.5 + 3.0 * (i + 0.5) / N, y = 0.6 + 1.9 * fmod(0.618034 * i, 1.0);
    if (fabs(x - y) < 1e-2)
      y += 0.05;
    in[2 * i] = (T)x;
    in[2 * i + 1] = (T)y;
  }
}

// Central differences of the exact function at the point as stored.
static double partial(double (*f)(double, double), double x, double y, int k) {
  double h = 1e-5;
  return k == 0 ? (f(x + h, y) - f(x - h, y)) / (2 * h) : (f(x, y + h) - f(x, y - h)) / (2 * h);
}

template <class T>
static void check_all(const char *what, double (*f)(double, double), const T *in, const T *host_grad,
                      const T *host_tan, const T *dev_grad, const T *dev_tan, double rtol) {
  for (int i = 0; i < N; i++)
    for (int k = 0; k < 2; k++) {
      double want = partial(f, in[2 * i], in[2 * i + 1], k);
      check_close(host_grad[2 * i + k], want, rtol, "%s: host reverse, point %d, d/d%c", what, i, "xy"[k]);
      check_close(host_tan[2 * i + k], want, rtol, "%s: host forward, point %d, d/d%c", what, i, "xy"[k]);
      check_close(dev_grad[2 * i + k], want, rtol, "%s: device reverse, point %d, d/d%c", what, i, "xy"[k]);
      check_close(dev_tan[2 * i + k], want, rtol, "%s: device forward, point %d, d/d%c", what, i, "xy"[k]);
    }
}

// The host function's derivatives: reverse with all output adjoints 1 (each
// point's gradient: every output reads its own point), forward along x and
// then y for every point at once.
template <class T, void (*fn)(T *, const T *, int)>
static void host_side(const T *d_in, T *grad, T *tan) {
  static T ones[N], zeros[2 * N], ex[2 * N], ey[2 * N], tx[N], ty[N];
  for (int i = 0; i < N; i++) {
    ones[i] = 1;
    ex[2 * i] = ey[2 * i + 1] = 1;
  }
  T *d_out = device_alloc<T>(N), *d_dout = to_device(ones), *d_grad = to_device(zeros);
  __enzyme_autodiff((void *)fn, enzyme_dupnoneed, d_out, d_dout, enzyme_dup, d_in, d_grad, N);
  check_kernel("reverse");
  check_cuda(cudaMemcpy(grad, d_grad, sizeof zeros, cudaMemcpyDeviceToHost), "copy");
  T *d_ex = to_device(ex), *d_ey = to_device(ey), *d_t = device_alloc<T>(N);
  __enzyme_fwddiff((void *)fn, enzyme_dup, d_out, d_t, enzyme_dup, d_in, d_ex, N);
  check_kernel("forward along x");
  from_device(tx, d_t);
  __enzyme_fwddiff((void *)fn, enzyme_dup, d_out, d_t, enzyme_dup, d_in, d_ey, N);
  check_kernel("forward along y");
  from_device(ty, d_t);
  for (int i = 0; i < N; i++) {
    tan[2 * i] = tx[i];
    tan[2 * i + 1] = ty[i];
  }
}

int main(void) {
  require_device();
  static float in[2 * N], grad[2 * N], tan[2 * N], dgrad[2 * N], dtan[2 * N];
  static double ind[2 * N], gradd[2 * N], tand[2 * N], dgradd[2 * N], dtand[2 * N];
  points(in);
  points(ind);
  float *d_in = to_device(in);
  double *d_ind = to_device(ind);

  for (int which = 0; which < 2; which++) {
    if (which == 0)
      host_side<float, run_fast>(d_in, grad, tan);
    else
      host_side<float, run_libm>(d_in, grad, tan);
    float *d_g = to_device(dgrad), *d_t = device_alloc(dtan);
    check_cuda(cudaMemset(d_g, 0, sizeof dgrad), "cudaMemset");
    device_float<<<blocks_for(N, THREADS), THREADS>>>(d_in, d_g, d_t, which);
    check_kernel("device_float");
    from_device(dgrad, d_g);
    from_device(dtan, d_t);
    check_all(which == 0 ? "fast" : "libm", which == 0 ? fast_exact : libm_exact, in, grad, tan, dgrad,
              dtan, 2e-3);
  }

  host_side<double, run_rounded>(d_ind, gradd, tand);
  double *d_g = to_device(dgradd), *d_t = device_alloc(dtand);
  check_cuda(cudaMemset(d_g, 0, sizeof dgradd), "cudaMemset");
  device_double<<<blocks_for(N, THREADS), THREADS>>>(d_ind, d_g, d_t);
  check_kernel("device_double");
  from_device(dgradd, d_g);
  from_device(dtand, d_t);
  check_all("rounded", rounded_exact, ind, gradd, tand, dgradd, dtand, 1e-7);
  device_free_all();
  return check_exit();
}
