/* pointwise_check.h: derivatives of pointwise CUDA functions of two inputs,
 * checked four ways (header only, CUDA C++, with cuda_check.h). A kernel
 * computes out[i] = f(in[2i], in[2i+1]) for n points; a host function
 * launches it. The tests of the NVVM rules use it:
 *
 *   pointwise_launch<T, f>                    that host function for __device__ T f(const T *p)
 *   pointwise_device<T, f>(d_in, n, grad, tan);
 *       the same derivatives by requests inside a kernel: __enzyme_autodiff
 *       and __enzyme_fwddiff on f, one thread per point
 *
 *   pointwise_host<T, launch>(d_in, n, grad, tan);
 *       the host function `launch` differentiated on the host: grad[2i+k]
 *       by reverse mode (every output's adjoint 1), tan[2i+k] by forward
 *       mode along x (k = 0), then y (k = 1)
 *   pointwise_check("what", in, n, want, host_grad, host_tan, dev_grad, dev_tan, rtol);
 *       each against want(x, y, d) (d[0] = df/dx, d[1] = df/dy), with
 *       check_close; dev_* come from requests inside a kernel
 *   pointwise_all<T, f>("what", in, d_in, n, want, rtol);   all of these for f
 *   pointwise_grid(in, n, lo, hi);            n points spread over [lo, hi]^2
 */
#ifndef KINASE_TEST_POINTWISE_CHECK_H
#define KINASE_TEST_POINTWISE_CHECK_H

#include <kinase.h>
#include "cuda_check.h"

extern __device__ float __enzyme_fwddiff_f(void *, ...);
extern __device__ double __enzyme_fwddiff_d(void *, ...);

enum { POINTWISE_THREADS = 64 };

template <class T, T (*f)(const T *)> __global__ void pointwise_kernel(T *out, const T *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = f(in + 2 * i);
}

template <class T, T (*f)(const T *)> void pointwise_launch(T *out, const T *in, int n) {
  pointwise_kernel<T, f><<<blocks_for(n, POINTWISE_THREADS), POINTWISE_THREADS>>>(out, in, n);
}

/* The tangent of f at p along e, by a request of the entry point whose
 * result type is T's. */
template <class T, T (*f)(const T *)> __device__ T pointwise_tangent(const T *p, T *e) {
  if constexpr (sizeof(T) == sizeof(float))
    return __enzyme_fwddiff_f((void *)f, enzyme_dup, p, e);
  else
    return __enzyme_fwddiff_d((void *)f, enzyme_dup, p, e);
}

template <class T, T (*f)(const T *)>
__global__ void pointwise_requests(const T *in, T *grad, T *tan, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const T *p = in + 2 * i;
  T ex[2] = {1, 0}, ey[2] = {0, 1};
  __enzyme_autodiff((void *)f, enzyme_dup, p, grad + 2 * i);
  tan[2 * i] = pointwise_tangent<T, f>(p, ex);
  tan[2 * i + 1] = pointwise_tangent<T, f>(p, ey);
}

template <class T, T (*f)(const T *)> static void pointwise_device(const T *d_in, int n, T *grad, T *tan) {
  T *d_grad = device_alloc<T>(2 * n), *d_tan = device_alloc<T>(2 * n);
  check_cuda(cudaMemset(d_grad, 0, 2 * n * sizeof(T)), "cudaMemset");
  pointwise_requests<T, f><<<blocks_for(n, POINTWISE_THREADS), POINTWISE_THREADS>>>(d_in, d_grad, d_tan, n);
  check_kernel("pointwise_requests");
  check_cuda(cudaMemcpy(grad, d_grad, 2 * n * sizeof(T), cudaMemcpyDeviceToHost), "copy");
  check_cuda(cudaMemcpy(tan, d_tan, 2 * n * sizeof(T), cudaMemcpyDeviceToHost), "copy");
}

template <class T, void (*launch)(T *, const T *, int)>
static void pointwise_host(const T *d_in, int n, T *grad, T *tan) {
  T *ones = (T *)calloc(3 * n, sizeof(T)), *ex = ones + n, *t = (T *)calloc(n, sizeof(T));
  for (int i = 0; i < n; i++)
    ones[i] = 1;
  T *d_out = device_alloc<T>(n), *d_dout = device_alloc<T>(n), *d_grad = device_alloc<T>(2 * n);
  T *d_dir = device_alloc<T>(2 * n), *d_t = device_alloc<T>(n);
  check_cuda(cudaMemcpy(d_dout, ones, n * sizeof(T), cudaMemcpyHostToDevice), "copy");
  check_cuda(cudaMemset(d_grad, 0, 2 * n * sizeof(T)), "cudaMemset");
  __enzyme_autodiff((void *)launch, enzyme_dupnoneed, d_out, d_dout, enzyme_dup, d_in, d_grad, n);
  check_kernel("reverse");
  check_cuda(cudaMemcpy(grad, d_grad, 2 * n * sizeof(T), cudaMemcpyDeviceToHost), "copy");
  for (int k = 0; k < 2; k++) {
    for (int j = 0; j < 2 * n; j++)
      ex[j] = j % 2 == k;
    check_cuda(cudaMemcpy(d_dir, ex, 2 * n * sizeof(T), cudaMemcpyHostToDevice), "copy");
    __enzyme_fwddiff((void *)launch, enzyme_dup, d_out, d_t, enzyme_dup, d_in, d_dir, n);
    check_kernel(k == 0 ? "forward along x" : "forward along y");
    check_cuda(cudaMemcpy(t, d_t, n * sizeof(T), cudaMemcpyDeviceToHost), "copy");
    for (int i = 0; i < n; i++)
      tan[2 * i + k] = t[i];
  }
  free(ones);
  free(t);
}

template <class T>
static void pointwise_check(const char *what, const T *in, int n, void (*want)(double, double, double *),
                            const T *host_grad, const T *host_tan, const T *dev_grad, const T *dev_tan,
                            double rtol) {
  for (int i = 0; i < n; i++) {
    double d[2];
    want(in[2 * i], in[2 * i + 1], d);
    for (int k = 0; k < 2; k++) {
      char axis = "xy"[k];
      check_close(host_grad[2 * i + k], d[k], rtol, "%s: host reverse, point %d, d/d%c", what, i, axis);
      check_close(host_tan[2 * i + k], d[k], rtol, "%s: host forward, point %d, d/d%c", what, i, axis);
      check_close(dev_grad[2 * i + k], d[k], rtol, "%s: device reverse, point %d, d/d%c", what, i, axis);
      check_close(dev_tan[2 * i + k], d[k], rtol, "%s: device forward, point %d, d/d%c", what, i, axis);
    }
  }
}

/* All of the above for f: its derivatives at the n points in (in on the
 * host, d_in its copy on the device), four ways, against want. */
template <class T, T (*f)(const T *)>
static void pointwise_all(const char *what, const T *in, const T *d_in, int n,
                          void (*want)(double, double, double *), double rtol) {
  T *grad = (T *)calloc(8 * n, sizeof(T)), *tan = grad + 2 * n, *dgrad = tan + 2 * n, *dtan = dgrad + 2 * n;
  pointwise_host<T, pointwise_launch<T, f>>(d_in, n, grad, tan);
  pointwise_device<T, f>(d_in, n, dgrad, dtan);
  pointwise_check(what, in, n, want, grad, tan, dgrad, dtan, rtol);
  free(grad);
}

/* n points (in[2i], in[2i+1]) spread over [lo, hi]^2: x evenly, y by the
 * golden ratio's fractional parts. */
template <class T> static void pointwise_grid(T *in, int n, double lo, double hi) {
  for (int i = 0; i < n; i++) {
    in[2 * i] = (T)(lo + (hi - lo) * (i + 0.5) / n);
    in[2 * i + 1] = (T)(lo + (hi - lo) * fmod(0.618034 * i, 1.0));
  }
}

#endif
