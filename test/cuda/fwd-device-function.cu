// Forward mode inside a kernel: each thread asks for the tangent of a
// __device__ function at its own point. The program declares the Enzyme
// markers and entry point itself, as Enzyme's CUDA users do.
//
// REQUIRES: cuda
// RUN: %kinase-cc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: FileCheck %s --input-file=%t.O0.ptx
// RUN: %kinase-cc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc -O2 %s -o %t.exe
//
// The request is gone from the PTX: the derivative replaced it.
// CHECK-NOT: __enzyme_fwddiff
// CHECK: .entry _Z8tangentsPKddPdi
// CHECK-NOT: __enzyme_fwddiff

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

__device__ int enzyme_dup;
__device__ int enzyme_const;
extern __device__ double __enzyme_fwddiff(void *, ...);

// f(x; c) = c x^2 sqrt(x) + x / (1 + x^2)
__device__ double f(double x, double c) {
  return c * x * x * sqrt(x) + x / (1.0 + x * x);
}

// d f / d x = 2.5 c x sqrt(x) + (1 - x^2) / (1 + x^2)^2
static double df_dx(double x, double c) {
  double q = 1.0 + x * x;
  return 2.5 * c * x * sqrt(x) + (1.0 - x * x) / (q * q);
}

__global__ void tangents(const double *x, double c, double *dx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dx[i] = __enzyme_fwddiff((void *)f, enzyme_dup, x[i], 1.0, enzyme_const, c);
}

static void check(cudaError_t err, const char *what) {
  if (err != cudaSuccess) {
    printf("FAIL: %s: %s\n", what, cudaGetErrorString(err));
    exit(1);
  }
}

// Exit 2, with a message of its own, when there is no GPU to run on.
static void require_device(void) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count < 1) {
    printf("NO CUDA DEVICE: %s\n", err != cudaSuccess ? cudaGetErrorString(err) : "0 devices");
    exit(2);
  }
}

int main(void) {
  enum { N = 1000 };
  const double c = 0.75;
  static double x[N], dx[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.05 + 0.01 * i;

  require_device();
  double *d_x, *d_dx;
  check(cudaMalloc(&d_x, sizeof x), "cudaMalloc");
  check(cudaMalloc(&d_dx, sizeof dx), "cudaMalloc");
  check(cudaMemcpy(d_x, x, sizeof x, cudaMemcpyHostToDevice), "copy to device");
  tangents<<<(N + 127) / 128, 128>>>(d_x, c, d_dx, N);
  check(cudaGetLastError(), "kernel launch");
  check(cudaDeviceSynchronize(), "kernel run");
  check(cudaMemcpy(dx, d_dx, sizeof dx, cudaMemcpyDeviceToHost), "copy to host");
  cudaFree(d_x);
  cudaFree(d_dx);

  int bad = 0;
  for (int i = 0; i < N; i++) {
    double want = df_dx(x[i], c);
    if (fabs(dx[i] - want) > 1e-12 * fmax(1.0, fabs(want))) {
      if (bad++ < 5)
        printf("x = %g: tangent %.17g, expected %.17g\n", x[i], dx[i], want);
    }
  }
  printf("%s: %d of %d tangents wrong\n", bad ? "FAIL" : "PASS", bad, N);
  return bad != 0;
}
