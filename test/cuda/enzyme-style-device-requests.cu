// Device-side requests written as Enzyme's CUDA users write them, checked
// against analytic derivatives:
// - a typed prototype, `void __enzyme_autodiff(f_ptr, int, double *,
//   double *, int, double *, double *)`, with the markers declared
//   `int __device__ enzyme_dup;` and the result enzyme_dupnoneed;
// - `__enzyme_fwddiff` and `__enzyme_autodiff` with enzyme_out on the same
//   function in one kernel (Horner's rule over Const coefficients);
// - per-sample gradients of a log-likelihood whose data the function stages
//   through a __shared__ tile between __syncthreads (Const data, every
//   thread of the block at every barrier).
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe

#include <vector>
#include "cuda_check.h"

int __device__ enzyme_dup;
int __device__ enzyme_dupnoneed;
int __device__ enzyme_const;
int __device__ enzyme_out;

typedef void (*f_ptr)(double *, double *);
extern void __device__ __enzyme_autodiff(f_ptr, int, double *, double *, int, double *, double *);
extern __device__ double __enzyme_fwddiff(void *, ...);
template <typename R, typename... A> __device__ R __enzyme_autodiff(void *, A...);

__device__ void cube_sin(double *x, double *y) { y[0] = x[0] * x[0] * sin(x[0]); }

__global__ void typed_request(double *x, double *dx, double *y, double *dy, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    __enzyme_autodiff(cube_sin, enzyme_dup, x + i, dx + i, enzyme_dupnoneed, y + i, dy + i);
}

__device__ double horner(double x, const double *c, int n) {
  double r = 0;
  for (int k = n - 1; k >= 0; k--)
    r = r * x + c[k];
  return exp(-r) / (1 + x * x);
}

__global__ void both_modes(double *out, const double *xs, const double *c, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m)
    return;
  out[2 * i] = __enzyme_fwddiff((void *)horner, xs[i], 1.0, enzyme_const, c, enzyme_const, n);
  out[2 * i + 1] = __enzyme_autodiff<double>((void *)horner, enzyme_out, xs[i], enzyme_const, c, enzyme_const, n);
}

constexpr int kTile = 128;

__device__ float loglik_tiled(const float *th, const float *x, int N) {
  __shared__ float tile[kTile];
  float mu = th[0], ls = th[1], is = expf(-ls), q = 0.f;
  for (int base = 0; base < N; base += kTile) {
    int k = base + threadIdx.x;
    tile[threadIdx.x] = k < N ? x[k] : 0.f;
    __syncthreads();
    int m = min(kTile, N - base);
    for (int j = 0; j < m; j++) {
      float d = (tile[j] - mu) * is;
      q += d * d;
    }
    __syncthreads();
  }
  return -0.5f * q - N * ls;
}

__global__ void tiled_grads(const float *th, float *dth, const float *x, int N, int B) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  int clamped = b < B ? b : B - 1; // every thread reaches the barriers
  float d[2] = {0.f, 0.f};
  __enzyme_autodiff<float>((void *)loglik_tiled, enzyme_dup, th + 2 * clamped, d, enzyme_const, x,
                           enzyme_const, N);
  if (b < B) {
    dth[2 * b] = d[0];
    dth[2 * b + 1] = d[1];
  }
}

int main() {
  require_device();
  // typed prototype
  const int n = 64;
  std::vector<double> x(n), ones(n, 1.0), dx(n);
  for (int i = 0; i < n; i++)
    x[i] = -2.0 + 0.07 * i;
  double *d_x = to_device(x), *d_dx = device_alloc<double>(n), *d_y = device_alloc<double>(n);
  double *d_dy = to_device(ones);
  check_cuda(cudaMemset(d_dx, 0, n * sizeof(double)), "memset");
  typed_request<<<1, n>>>(d_x, d_dx, d_y, d_dy, n);
  check_kernel("typed_request");
  from_device(dx, d_dx);
  for (int i = 0; i < n; i++)
    check_close(dx[i], 2 * x[i] * sin(x[i]) + x[i] * x[i] * cos(x[i]), 1e-12, "typed d/dx at %g", x[i]);

  // forward and reverse of one function in one kernel
  const int m = 300, nc = 4;
  std::vector<double> c = {0.1, -0.2, 0.05, 0.01}, xs(m), out(2 * m);
  for (int i = 0; i < m; i++)
    xs[i] = -1.5 + 0.01 * i;
  double *d_xs = to_device(xs), *d_c = to_device(c), *d_out = device_alloc<double>(2 * m);
  both_modes<<<blocks_for(m, 128), 128>>>(d_out, d_xs, d_c, nc, m);
  check_kernel("both_modes");
  from_device(out, d_out);
  for (int i = 0; i < m; i++) {
    double X = xs[i], r = 0, dr = 0;
    for (int k = nc - 1; k >= 0; k--) {
      dr = dr * X + r;
      r = r * X + c[k];
    }
    double f = exp(-r) / (1 + X * X), want = -dr * f - f * 2 * X / (1 + X * X);
    check_close(out[2 * i], want, 1e-12, "forward at %g", X);
    check_close(out[2 * i + 1], want, 1e-12, "reverse at %g", X);
  }

  // shared-memory tiles of Const data
  const int B = 1000, N = 300;
  std::vector<float> th(2 * B), data(N), g(2 * B);
  for (int b = 0; b < B; b++) {
    th[2 * b] = 0.001f * b;
    th[2 * b + 1] = 0.1f * sinf(b);
  }
  for (int k = 0; k < N; k++)
    data[k] = sinf(0.7f * k);
  float *d_th = to_device(th), *d_dth = device_alloc<float>(2 * B), *d_data = to_device(data);
  tiled_grads<<<blocks_for(B, kTile), kTile>>>(d_th, d_dth, d_data, N, B);
  check_kernel("tiled_grads");
  from_device(g, d_dth);
  for (int b = 0; b < B; b++) {
    double mu = th[2 * b], ls = th[2 * b + 1], is = exp(-ls), s1 = 0, s2 = 0;
    for (int k = 0; k < N; k++) {
      double d = data[k] - mu;
      s1 += d;
      s2 += d * d;
    }
    check_close(g[2 * b], is * is * s1, 1e-3, "tiled d/dmu, sample %d", b);
    check_close(g[2 * b + 1], is * is * s2 - N, 1e-3, "tiled d/dlog s, sample %d", b);
  }
  device_free_all();
  return check_exit();
}
