// Scatters into an address the lanes of a warp share, inside a loop: the
// reverse kernel sums a lane's share of each iteration across the warp at
// the end of the iteration, under a check made once where the loop's
// reverse is entered (all 32 lanes there, agreeing on the iteration count
// and on what the address is computed from). Each kernel here meets that
// check differently, and each gradient is checked against its exact value:
// - square: every lane runs every j, one skips j == i (its share that
//   iteration is nothing), the last warp is partial (n = 100);
// - triangle: thread i runs j < i, so the lanes' counts differ: atomics per
//   lane;
// - pick: half the lanes read one array, half another (a pointer merged
//   from two branches before the loop): the lanes disagree, atomics per lane;
// - sparse: the add is under a condition on Const data, skipped by all
//   lanes in some iterations;
// - grid-stride: an outer grid-stride loop around the scatter loop;
// - double, and a device-side request of the same function.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The square kernel's reverse: the lanes' agreement is checked once, before
// the loop, and the loop has the shuffles but no check of its own.
// CHECK-LABEL: .entry __kinase_krev_ncd__Z6squareIfEvPT_PKS0_S3_i(
// CHECK:         activemask.b32
// CHECK:         match.all.sync.b64
// CHECK:       $L__BB{{[0-9_]+}}: {{.*}}Loop Header
// CHECK-NOT:     {{activemask|match.all}}
// CHECK:         shfl.sync.bfly.b32
// CHECK-NOT:     {{activemask|match.all}}
// CHECK:         ret;

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

enum { N = 100, THREADS = 64 };

// e_i = c_i * sum_{j != i} x_j^2
template <class T> __global__ void square(T *e, const T *x, const T *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  T s = 0;
  for (int j = 0; j < n; j++) {
    if (j == i)
      continue;
    s += x[j] * x[j];
  }
  e[i] = c[i] * s;
}

// e_i = c_i * sum_{j < i} sin(x_j)
__global__ void triangle(float *e, const float *x, const float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float s = 0;
  for (int j = 0; j < i; j++)
    s += sinf(x[j]);
  e[i] = c[i] * s;
}

// e_i = c_i * sum_j p_j^2, p = a for odd i, b for even i
__global__ void pick(float *e, const float *a, const float *b, const float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const float *p;
  if (i & 1)
    p = a;
  else
    p = b;
  float s = 0;
  for (int j = 0; j < n; j++)
    s += p[j] * p[j];
  e[i] = c[i] * s;
}

// e_i = c_i * sum_{j: on[j]} x_j^3
__global__ void sparse(float *e, const float *x, const int *on, const float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float s = 0;
  for (int j = 0; j < n; j++)
    if (on[j])
      s += x[j] * x[j] * x[j];
  e[i] = c[i] * s;
}

// square's energies, each thread taking several i.
__global__ void strided(float *e, const float *x, const float *c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float s = 0;
    for (int j = 0; j < n; j++)
      s += x[j] * x[j];
    e[i] = c[i] * s;
  }
}

template <class T> void run_square(T *e, const T *x, const T *c, int n) {
  square<T><<<blocks_for(n, THREADS), THREADS>>>(e, x, c, n);
}
void run_triangle(float *e, const float *x, const float *c, int n) {
  triangle<<<blocks_for(n, THREADS), THREADS>>>(e, x, c, n);
}
void run_pick(float *e, const float *a, const float *b, const float *c, int n) {
  pick<<<blocks_for(n, THREADS), THREADS>>>(e, a, b, c, n);
}
void run_sparse(float *e, const float *x, const int *on, const float *c, int n) {
  sparse<<<blocks_for(n, THREADS), THREADS>>>(e, x, on, c, n);
}
void run_strided(float *e, const float *x, const float *c, int n) { strided<<<1, 32>>>(e, x, c, n); }

// The device-side way in: thread i differentiates its own e_i.
__device__ float square_one(const float *x, int i, int n) {
  float s = 0;
  for (int j = 0; j < n; j++) {
    if (j == i)
      continue;
    s += x[j] * x[j];
  }
  return s;
}
__global__ void square_device(const float *x, float *dx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    __enzyme_autodiff((void *)square_one, enzyme_dup, x, dx, i, n);
}

// One request, its gradient against `want`.
template <class T, class F> static void check_gradient(const char *what, F request, const std::vector<double> &want,
                                                      T *d_dx, double rtol) {
  std::vector<T> got(want.size());
  check_cuda(cudaMemset(d_dx, 0, got.size() * sizeof(T)), "cudaMemset");
  request();
  check_kernel(what);
  from_device(got, d_dx);
  for (size_t j = 0; j < want.size(); j++)
    check_close(got[j], want[j], rtol, "%s: d/dx[%zu]", what, j);
}

int main(void) {
  require_device();
  std::vector<float> x(N), a(N), b(N), c(N), ones(N, 1.f);
  std::vector<double> xd(N);
  std::vector<int> on(N);
  for (int j = 0; j < N; j++) {
    x[j] = (float)(0.5 + 0.3 * sin(1.3 * j));
    a[j] = (float)(1.0 + 0.2 * cos(0.7 * j));
    b[j] = (float)(-0.5 + 0.1 * sin(2.1 * j));
    c[j] = (float)(0.25 + 0.01 * j);
    xd[j] = x[j];
    on[j] = j % 3 != 1;
  }
  double csum = 0, codd = 0, ceven = 0;
  for (int i = 0; i < N; i++) {
    csum += c[i];
    (i & 1 ? codd : ceven) += c[i];
  }
  std::vector<double> want_square(N), want_triangle(N), want_a(N), want_b(N), want_sparse(N), want_strided(N),
      want_device(N);
  for (int j = 0; j < N; j++) {
    want_square[j] = 2 * x[j] * (csum - c[j]);
    double later = 0;
    for (int i = j + 1; i < N; i++)
      later += c[i];
    want_triangle[j] = cos((double)x[j]) * later;
    want_a[j] = 2 * a[j] * codd;
    want_b[j] = 2 * b[j] * ceven;
    want_sparse[j] = on[j] ? 3.0 * x[j] * x[j] * csum : 0.0;
    want_strided[j] = 2 * x[j] * csum;
    want_device[j] = 2 * x[j] * (N - 1);
  }

  float *d_x = to_device(x), *d_a = to_device(a), *d_b = to_device(b), *d_c = to_device(c);
  float *d_e = device_alloc<float>(N), *d_de = device_alloc<float>(N), *d_dx = device_alloc<float>(N);
  float *d_db = device_alloc<float>(N);
  int *d_on = to_device(on);
  auto seed = [&] { check_cuda(cudaMemcpy(d_de, ones.data(), N * sizeof(float), cudaMemcpyHostToDevice), "seed"); };

  check_gradient("square", [&] {
    seed();
    __enzyme_autodiff((void *)run_square<float>, enzyme_dupnoneed, d_e, d_de, enzyme_dup, d_x, d_dx,
                      enzyme_const, d_c, N);
  }, want_square, d_dx, 1e-5);
  check_gradient("triangle", [&] {
    seed();
    __enzyme_autodiff((void *)run_triangle, enzyme_dupnoneed, d_e, d_de, enzyme_dup, d_x, d_dx,
                      enzyme_const, d_c, N);
  }, want_triangle, d_dx, 1e-5);
  check_cuda(cudaMemset(d_db, 0, N * sizeof(float)), "cudaMemset");
  check_gradient("pick (a)", [&] {
    seed();
    __enzyme_autodiff((void *)run_pick, enzyme_dupnoneed, d_e, d_de, enzyme_dup, d_a, d_dx, enzyme_dup, d_b,
                      d_db, enzyme_const, d_c, N);
  }, want_a, d_dx, 1e-5);
  std::vector<float> db(N);
  from_device(db, d_db);
  for (int j = 0; j < N; j++)
    check_close(db[j], want_b[j], 1e-5, "pick (b): d/db[%d]", j);
  check_gradient("sparse", [&] {
    seed();
    __enzyme_autodiff((void *)run_sparse, enzyme_dupnoneed, d_e, d_de, enzyme_dup, d_x, d_dx,
                      enzyme_const, d_on, enzyme_const, d_c, N);
  }, want_sparse, d_dx, 1e-5);
  check_gradient("grid-stride", [&] {
    seed();
    __enzyme_autodiff((void *)run_strided, enzyme_dupnoneed, d_e, d_de, enzyme_dup, d_x, d_dx,
                      enzyme_const, d_c, N);
  }, want_strided, d_dx, 1e-5);
  check_gradient("device-side", [&] { square_device<<<blocks_for(N, THREADS), THREADS>>>(d_x, d_dx, N); },
                 want_device, d_dx, 1e-5);

  double *d_xd = to_device(xd), *d_cd = device_alloc<double>(N), *d_ed = device_alloc<double>(N);
  double *d_ded = device_alloc<double>(N), *d_dxd = device_alloc<double>(N);
  std::vector<double> cd(c.begin(), c.end()), onesd(N, 1.0);
  check_cuda(cudaMemcpy(d_cd, cd.data(), N * sizeof(double), cudaMemcpyHostToDevice), "c");
  check_gradient("square, double", [&] {
    check_cuda(cudaMemcpy(d_ded, onesd.data(), N * sizeof(double), cudaMemcpyHostToDevice), "seed");
    __enzyme_autodiff((void *)run_square<double>, enzyme_dupnoneed, d_ed, d_ded, enzyme_dup, d_xd, d_dxd,
                      enzyme_const, d_cd, N);
  }, want_square, d_dxd, 1e-12);
  device_free_all();
  return check_exit();
}
