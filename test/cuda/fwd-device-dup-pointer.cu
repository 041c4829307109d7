// Forward mode inside a kernel of a void __device__ function that reads its
// inputs through one pointer and writes its outputs through another, both
// enzyme_dup: the tangent of the inputs goes in the shadow of `in`, the
// tangent of the outputs comes back in the shadow of `out`. One output is
// computed from outputs written before it (a store, then a load of it).
// Each thread computes the full 4x3 Jacobian, one column per call, twice:
// with arrays in its own local memory, and with slices of global memory.
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
// CHECK: .entry _Z5localPKdPdi
// CHECK-NOT: __enzyme_fwddiff
// CHECK: .entry _Z6globalPKdPdS1_S1_i
// CHECK-NOT: __enzyme_fwddiff

#include <math.h>
#include "cuda_check.h"

__device__ int enzyme_dup;
__device__ int enzyme_const;
extern __device__ void __enzyme_fwddiff(void *, ...);

enum { NIN = 3, NOUT = 4 };

__host__ __device__ void model(const double *in, double *out) {
  double a = in[0], b = in[1], c = in[2];
  out[0] = a * b + c;
  out[1] = sin(a) * exp(b);
  out[2] = sqrt(a * a + b * b + c * c);
  out[3] = out[0] * out[1] - c * out[2];
}

// jac[i] holds the Jacobian of thread i, row-major, NOUT x NIN.
__global__ void local(const double *x, double *jac, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  for (int j = 0; j < NIN; j++) {
    double in[NIN], din[NIN], out[NOUT], dout[NOUT];
    for (int k = 0; k < NIN; k++) {
      in[k] = x[i * NIN + k];
      din[k] = k == j ? 1.0 : 0.0;
    }
    __enzyme_fwddiff((void *)model, enzyme_dup, in, din, enzyme_dup, out, dout);
    for (int r = 0; r < NOUT; r++)
      jac[(size_t)i * NOUT * NIN + r * NIN + j] = dout[r];
  }
}

// The same through global memory: scratch holds, per thread, the input
// tangent (NIN), the output (NOUT) and the output tangent (NOUT).
__global__ void global(const double *x, double *scratch, double *jac, double *primal, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double *din = scratch + (size_t)i * (NIN + 2 * NOUT);
  double *out = din + NIN, *dout = out + NOUT;
  for (int j = 0; j < NIN; j++) {
    for (int k = 0; k < NIN; k++)
      din[k] = k == j ? 1.0 : 0.0;
    __enzyme_fwddiff((void *)model, enzyme_dup, x + i * NIN, din, enzyme_dup, out, dout);
    for (int r = 0; r < NOUT; r++)
      jac[(size_t)i * NOUT * NIN + r * NIN + j] = dout[r];
  }
  for (int r = 0; r < NOUT; r++)
    primal[(size_t)i * NOUT + r] = out[r];
}

static void exact_jacobian(const double *in, double J[NOUT][NIN]) {
  double a = in[0], b = in[1], c = in[2];
  double o0 = a * b + c, o1 = sin(a) * exp(b), o2 = sqrt(a * a + b * b + c * c);
  J[0][0] = b, J[0][1] = a, J[0][2] = 1.0;
  J[1][0] = cos(a) * exp(b), J[1][1] = o1, J[1][2] = 0.0;
  J[2][0] = a / o2, J[2][1] = b / o2, J[2][2] = c / o2;
  for (int j = 0; j < NIN; j++)
    J[3][j] = J[0][j] * o1 + o0 * J[1][j] - c * J[2][j] - (j == 2 ? o2 : 0.0);
}

int main(void) {
  enum { N = 300 };
  static double x[N * NIN], jac_l[N * NOUT * NIN], jac_g[N * NOUT * NIN], primal[N * NOUT];
  for (int i = 0; i < N * NIN; i++)
    x[i] = -1.0 + 2.0 * ((i * 53) % 101) / 100.0 + 0.003;

  for (int i = 0; i < N; i += 5) {
    double J[NOUT][NIN];
    exact_jacobian(x + i * NIN, J);
    for (int j = 0; j < NIN; j++) {
      double ip[NIN], im[NIN], op[NOUT], om[NOUT], h = 1e-6;
      for (int k = 0; k < NIN; k++)
        ip[k] = im[k] = x[i * NIN + k];
      ip[j] += h, im[j] -= h;
      model(ip, op);
      model(im, om);
      for (int r = 0; r < NOUT; r++)
        require_exact(J[r][j], (op[r] - om[r]) / (2 * h), 1e-6,
                      "Jacobian entry (%d, %d) of point %d", r, j, i);
    }
  }

  require_device();
  double *d_x = to_device(x), *d_scratch = device_alloc<double>(N * (NIN + 2 * NOUT));
  double *d_jl = device_alloc(jac_l), *d_jg = device_alloc(jac_g);
  double *d_primal = device_alloc(primal);
  local<<<blocks_for(N, 64), 64>>>(d_x, d_jl, N);
  check_kernel("local");
  global<<<blocks_for(N, 64), 64>>>(d_x, d_scratch, d_jg, d_primal, N);
  check_kernel("global");
  from_device(jac_l, d_jl);
  from_device(jac_g, d_jg);
  from_device(primal, d_primal);
  device_free_all();

  for (int i = 0; i < N; i++) {
    double J[NOUT][NIN], o[NOUT];
    exact_jacobian(x + i * NIN, J);
    model(x + i * NIN, o);
    for (int r = 0; r < NOUT; r++) {
      check_close(primal[i * NOUT + r], o[r], 1e-12, "point %d: primal output %d", i, r);
      for (int j = 0; j < NIN; j++) {
        int at = i * NOUT * NIN + r * NIN + j;
        check_close(jac_l[at], J[r][j], 1e-12, "point %d, local memory: d out[%d] / d in[%d]", i,
                    r, j);
        check_close(jac_g[at], J[r][j], 1e-12, "point %d, global memory: d out[%d] / d in[%d]", i,
                    r, j);
      }
    }
  }
  return check_exit();
}
