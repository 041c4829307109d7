// An all-pairs interaction through rsqrtf (NVVM's rsqrt.approx) and, in
// double, rsqrt (libdevice's __nv_rsqrt): per particle i the energy
//   e_i = sum_{j != i} 0.5 / sqrt(|r_i - r_j|^2 + eps),
// whose gradient summed over i is minus the force. Both ways in: a host
// function launching the kernel, differentiated on the host (its reverse and
// forward derivative kernels), and __enzyme_autodiff / __enzyme_fwddiff
// inside a kernel on the __device__ function. The other particles are read
// through __ldg. Checked against the analytic gradient, float and double.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The float kernel's reverse derivative kernel reuses the rsqrt of the
// forward sweep for the partial (-0.5 rsqrt^3): no IEEE square root and no
// division anywhere in it.
// Every thread scatters into the adjoint of particle j, the same address
// in all lanes: where the whole warp enters the loop's reverse agreeing on
// its count and on the address's base (checked once, before the loop), the
// three coordinates' adds of an iteration are summed with one shuffle tree
// (6 shuffles) and one lane adds each sum; else each lane adds atomically.
// CHECK-LABEL: .entry __kinase_krev_nd__Z8energiesIfEvPT_PKS0_i(
// CHECK-NOT:     {{sqrt.rn|div.rn}}
// CHECK:         activemask.b32
// CHECK:         match.all.sync.b64
// CHECK:       Loop Header
// CHECK-NOT:     {{activemask|match.all|sqrt.rn|div.rn}}
// CHECK-COUNT-6: shfl.sync.bfly.b32
// CHECK-NOT:     {{activemask|match.all|sqrt.rn|div.rn|shfl}}
// CHECK:         rsqrt.approx.f32
// CHECK-NOT:     {{activemask|match.all|sqrt.rn|div.rn|shfl}}
// CHECK:         ret;
// CHECK-NOT: __enzyme_autodiff
// CHECK-NOT: __enzyme_fwddiff

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

extern __device__ float __enzyme_fwddiff_f(void *, ...);
extern __device__ double __enzyme_fwddiff_d(void *, ...);

enum { SIDE = 6, N = SIDE * SIDE * SIDE, THREADS = 64 };
static const double EPS = 0.01;

__device__ float inv_sqrt(float s) { return rsqrtf(s); }
__device__ double inv_sqrt(double s) { return rsqrt(s); }
template <class T> __device__ T pair_energy(const T *x, int i, int n) {
  T xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2], e = 0;
  for (int j = 0; j < n; j++) {
    if (j == i)
      continue;
    // the other particles through the read-only cache (__ldg: ld.global.nc)
    T dx = xi - __ldg(x + 3 * j), dy = yi - __ldg(x + 3 * j + 1), dz = zi - __ldg(x + 3 * j + 2);
    e += (T)0.5 * inv_sqrt(dx * dx + dy * dy + dz * dz + (T)EPS);
  }
  return e;
}

// d e_i / d x . v, by forward mode (the entry point's type is the result's).
__device__ float tangent(const float *x, const float *v, int i, int n) {
  return __enzyme_fwddiff_f((void *)pair_energy<float>, enzyme_dup, x, v, i, n);
}
__device__ double tangent(const double *x, const double *v, int i, int n) {
  return __enzyme_fwddiff_d((void *)pair_energy<double>, enzyme_dup, x, v, i, n);
}

template <class T> __global__ void energies(T *e, const T *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    e[i] = pair_energy(x, i, n);
}

template <class T> void compute_energies(T *e, const T *x, int n) {
  energies<T><<<blocks_for(n, THREADS), THREADS>>>(e, x, n);
}

// Device side: thread i adds d e_i / d x into dx (every thread into every
// particle's adjoint) and computes d e_i / d x . v.
template <class T> __global__ void device_gradients(const T *x, T *dx, const T *v, T *te, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  __enzyme_autodiff((void *)pair_energy<T>, enzyme_dup, x, dx, i, n);
  te[i] = tangent(x, v, i, n);
}

// Exact, in double from the same positions: e_i, d(sum e)/d r_i, d e_i / d x . v.
static void reference(const double *x, const double *v, double *e, double *grad, double *tangent) {
  for (int i = 0; i < N; i++) {
    e[i] = tangent[i] = 0;
    for (int c = 0; c < 3; c++)
      grad[3 * i + c] = 0;
    for (int j = 0; j < N; j++) {
      if (j == i)
        continue;
      double d[3], s = EPS, dv = 0;
      for (int c = 0; c < 3; c++) {
        d[c] = x[3 * i + c] - x[3 * j + c];
        s += d[c] * d[c];
        dv += d[c] * (v[3 * i + c] - v[3 * j + c]);
      }
      double r3 = pow(s, -1.5);
      e[i] += 0.5 / sqrt(s);
      tangent[i] -= 0.5 * r3 * dv;
      for (int c = 0; c < 3; c++)
        grad[3 * i + c] -= d[c] * r3;
    }
  }
}

template <class T> static void run(const char *type, double rtol) {
  static T x[3 * N], v[3 * N], e[N], de[N], te[N], dx[3 * N], dx_dev[3 * N], te_dev[N];
  static double xd[3 * N], vd[3 * N], want_e[N], want_grad[3 * N], want_t[N];
  // A jittered lattice: neighbours about 0.5 apart, no pair too close.
  for (int i = 0; i < N; i++)
    for (int c = 0; c < 3; c++) {
      int coord = c == 0 ? i % SIDE : c == 1 ? (i / SIDE) % SIDE : i / (SIDE * SIDE);
      x[3 * i + c] = (T)(0.5 * coord + 0.1 * sin(1.7 * i + 2.3 * c));
      v[3 * i + c] = (T)cos(0.9 * i - 1.1 * c);
      xd[3 * i + c] = x[3 * i + c];
      vd[3 * i + c] = v[3 * i + c];
    }
  for (int i = 0; i < N; i++)
    de[i] = 1;
  reference(xd, vd, want_e, want_grad, want_t);

  T *d_x = to_device(x), *d_v = to_device(v), *d_e = device_alloc(e), *d_de = to_device(de);
  T *d_dx = device_alloc(dx), *d_te = device_alloc(te);
  check_cuda(cudaMemset(d_dx, 0, sizeof dx), "cudaMemset");

  // Host side, reverse: dx = d(sum_i e_i)/dx, the energies' adjoints all 1.
  __enzyme_autodiff((void *)compute_energies<T>, enzyme_dupnoneed, d_e, d_de, enzyme_dup, d_x, d_dx, N);
  check_kernel("reverse of energies");
  from_device(dx, d_dx);
  // Host side, forward: te_i = d e_i / dx . v, and the energies themselves.
  __enzyme_fwddiff((void *)compute_energies<T>, enzyme_dup, d_e, d_te, enzyme_dup, d_x, d_v, N);
  check_kernel("tangent of energies");
  from_device(e, d_e);
  from_device(te, d_te);

  // Device side, both modes in one kernel.
  T *d_dx2 = device_alloc(dx_dev), *d_te2 = device_alloc(te_dev);
  check_cuda(cudaMemset(d_dx2, 0, sizeof dx_dev), "cudaMemset");
  device_gradients<T><<<blocks_for(N, THREADS), THREADS>>>(d_x, d_dx2, d_v, d_te2, N);
  check_kernel("device_gradients");
  from_device(dx_dev, d_dx2);
  from_device(te_dev, d_te2);
  device_free_all();

  for (int i = 0; i < N; i++) {
    check_close(e[i], want_e[i], rtol, "%s: e[%d]", type, i);
    check_close(te[i], want_t[i], rtol, "%s: host forward, d e[%d] . v", type, i);
    check_close(te_dev[i], want_t[i], rtol, "%s: device forward, d e[%d] . v", type, i);
    for (int c = 0; c < 3; c++) {
      check_close(dx[3 * i + c], want_grad[3 * i + c], rtol, "%s: host reverse, dE/dx[%d][%d]", type, i, c);
      check_close(dx_dev[3 * i + c], want_grad[3 * i + c], rtol, "%s: device reverse, dE/dx[%d][%d]",
                  type, i, c);
    }
  }
}

int main(void) {
  require_device();
  run<float>("float", 2e-4);  // rsqrt.approx: about 2^-23 relative, summed over N terms
  run<double>("double", 1e-10);
  return check_exit();
}
