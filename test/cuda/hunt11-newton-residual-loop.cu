// Iterative solvers as CUDA users write them: a kernel running Newton's
// method per thread in a `while (true)` loop that breaks on a small step
// (a trip count that depends on the data), and a host loop relaxing a
// fixed point in place, launch after launch, until the squared residual,
// summed by atomicAdd into a device double and copied back each iteration,
// is small: the number of launches depends on the values. z solves
// z^3 + a z = b, u solves u + u^3 / 2 = z, loss = sum of u. Reverse mode
// against the implicit derivatives, forward mode against the gradient.
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
#include <vector>
#include "cuda_check.h"

enum { N = 300 };

__global__ void cubic_root(const double *a, const double *b, double *z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double A = a[i], B = b[i], x = B / (1.0 + A);
  int it = 0;
  while (true) {
    double step = (x * x * x + A * x - B) / (3 * x * x + A);
    x -= step;
    if (fabs(step) < 1e-14 || ++it > 50)
      break;
  }
  z[i] = x;
}

__global__ void relax(double *u, const double *rhs, double *resid, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double r = rhs[i] / (1.0 + 0.5 * u[i] * u[i]) - u[i];
  u[i] += 0.8 * r;
  atomicAdd(resid, r * r);
}

double solve(const double *h_a, const double *h_b, int n) {
  double *a, *b, *z, *u, *res;
  cudaMalloc(&a, n * sizeof(double));
  cudaMalloc(&b, n * sizeof(double));
  cudaMalloc(&z, n * sizeof(double));
  cudaMalloc(&u, n * sizeof(double));
  cudaMalloc(&res, sizeof(double));
  cudaMemcpy(a, h_a, n * sizeof(double), cudaMemcpyHostToDevice);
  cudaMemcpy(b, h_b, n * sizeof(double), cudaMemcpyHostToDevice);
  cudaMemset(u, 0, n * sizeof(double));
  cubic_root<<<(n + 127) / 128, 128>>>(a, b, z, n);
  double r = 1.0;
  for (int iters = 0; r > 1e-24 && iters < 200; iters++) {
    cudaMemset(res, 0, sizeof(double));
    relax<<<(n + 127) / 128, 128>>>(u, z, res, n);
    cudaMemcpy(&r, res, sizeof(double), cudaMemcpyDeviceToHost);
  }
  std::vector<double> hu(n);
  cudaMemcpy(hu.data(), u, n * sizeof(double), cudaMemcpyDeviceToHost);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += hu[i];
  cudaFree(a);
  cudaFree(b);
  cudaFree(z);
  cudaFree(u);
  cudaFree(res);
  return s;
}

int main() {
  require_device();
  std::vector<double> a(N), b(N), da(N, 0.0), db(N, 0.0);
  for (int i = 0; i < N; i++) {
    a[i] = 1.0 + 0.5 * sin(0.1 * i);
    b[i] = 0.5 + 0.4 * cos(0.07 * i);
  }
  __enzyme_autodiff((void *)solve, enzyme_dup, a.data(), da.data(), enzyme_dup, b.data(), db.data(),
                    enzyme_const, N);
  check_kernel("gradient of solve");
  double sum_db = 0.0;
  for (int i = 0; i < N; i++) {
    double z = b[i] / (1 + a[i]);
    for (int k = 0; k < 60; k++)
      z -= (z * z * z + a[i] * z - b[i]) / (3 * z * z + a[i]);
    double u = z;
    for (int k = 0; k < 60; k++)
      u -= (u + 0.5 * u * u * u - z) / (1 + 1.5 * u * u);
    double dudz = 1 / (1 + 1.5 * u * u), den = 3 * z * z + a[i];
    check_close(db[i], dudz / den, 1e-6, "db[%d]", i);
    check_close(da[i], -dudz * z / den, 1e-6, "da[%d]", i);
    sum_db += dudz / den;
  }
  std::vector<double> ta(N, 0.0), tb(N, 1.0);
  double t = __enzyme_fwddiff((void *)solve, enzyme_dup, a.data(), ta.data(), enzyme_dup, b.data(), tb.data(),
                              enzyme_const, N);
  check_kernel("tangent of solve");
  check_close(t, sum_db, 1e-6, "tangent along the b");
  return check_exit();
}
