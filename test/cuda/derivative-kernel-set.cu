// Which derivative kernels a device module holds (runtime/kinase_cuda.h),
// for the kinds of parameters the convention tells apart; the runtime's
// choice among them for each activity is test/runtime/derivative-names.c,
// with the same kernels. Every derivative kernel costs compile time
// (bench/cuda-compile-time.sh), so:
//  - written float pointers are 'n' in reverse kernels (the primal launch
//    stored their results), 'd' where the kernel writes other memory;
//  - a read-only float pointer each thread reads its own part of (th + 4i,
//    x[i]) is marked KINASE_PARAM_OWNED and is always 'd';
//  - one read-only float pointer that threads share varies ('d' or 'c');
//    two or more: all 'd' or all 'c';
//  - pointers moving no floats are 'c';
//  - one forward kernel, every float pointer 'd'.
//
// REQUIRES: cuda
// RUN: %kinase-cc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx --implicit-check-not=".entry __kinase_"
// RUN: %kinase-cc -O2 --cuda-device-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --check-prefix=INFO --input-file=%t.ll
//
// CHECK: .entry __kinase_krev_ndd_loglik(
// CHECK: .entry __kinase_krev_ndc_loglik(
// CHECK: .entry __kinase_kfwd_ddd_loglik(
// CHECK: .entry __kinase_krev_ndd_matmul(
// CHECK: .entry __kinase_krev_ncc_matmul(
// CHECK: .entry __kinase_kfwd_ddd_matmul(
// CHECK: .entry __kinase_krev_nd_saxpy(
// CHECK: .entry __kinase_kfwd_dd_saxpy(
// CHECK: .entry __kinase_krev_ncd_gather(
// CHECK: .entry __kinase_krev_ncc_gather(
// CHECK: .entry __kinase_kfwd_dcd_gather(
// CHECK: .entry __kinase_krev_dd_stencil(
// CHECK: .entry __kinase_krev_dc_stencil(
// CHECK: .entry __kinase_kfwd_dd_stencil(
// CHECK: .entry __kinase_krev__scaled(
// CHECK: .entry __kinase_kfwd__scaled(
//
// The kernel info: magic, parameter count, kernel flags, then one word per
// parameter. 2424840 = 0x250008: a written float pointer; 2293768 =
// 0x230008: a read-only one; 10682376 = 0xa30008: read only, owned
// (KINASE_PARAM_OWNED = 0x800000); saxpy's y is read and written, yet
// 0x250008 like a written one: its reverse kernel does not read it (y's old
// value has slope 1), so the runtime takes no snapshot of it; gather's x is
// 0x210008, neither read nor written by its reverse kernel (the adjoint of a
// copy needs no value); 1245192 = 0x130008: read only, no floats. stencil writes a __device__
// global (flags 3: it writes and reads other memory).
// INFO-DAG: @__kinase_kinfo_loglik = {{.*}} [i32 827214155, i32 5, i32 0, i32 2424840, i32 10682376, i32 2293768, i32 4, i32 4]
// INFO-DAG: @__kinase_kinfo_matmul = {{.*}} [i32 827214155, i32 4, i32 0, i32 2424840, i32 2293768, i32 2293768, i32 4]
// INFO-DAG: @__kinase_kinfo_saxpy = {{.*}} [i32 827214155, i32 4, i32 0, i32 2424840, i32 10682376, i32 524292, i32 4]
// INFO-DAG: @__kinase_kinfo_gather = {{.*}} [i32 827214155, i32 3, i32 0, i32 2424840, i32 1245192, i32 2162696]
// INFO-DAG: @__kinase_kinfo_stencil = {{.*}} [i32 827214155, i32 2, i32 3, i32 2424840, i32 2293768]

// The seed's kernel: th + 4i is each thread's own, x every thread's.
extern "C" __global__ void loglik(float *logL, const float *th, const float *x, int n, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < b) {
    float q = 0.f;
    for (int k = 0; k < n; k++) {
      float u = (x[2 * k] - th[4 * i]) / th[4 * i + 2];
      float v = (x[2 * k + 1] - th[4 * i + 1]) / th[4 * i + 3];
      q += u * u + v * v;
    }
    logL[i] = -0.5f * q - n * logf(th[4 * i + 2] * th[4 * i + 3]);
  }
}

// a and b shared.
extern "C" __global__ void matmul(float *c, const float *a, const float *b, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0;
  for (int k = 0; k < n; k++)
    acc += a[row * n + k] * b[k * n + col];
  c[row * n + col] = acc;
}

// In place; x owned.
extern "C" __global__ void saxpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

// idx moves no floats; x, read at idx[i], is shared.
extern "C" __global__ void gather(float *y, const int *idx, const float *x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = x[idx[i]];
}

// Writes other memory; in is read at i - 1 and i + 1: shared.
__device__ float total;
extern "C" __global__ void stencil(float *out, const float *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  out[i] = in[i - 1] + in[i + 1];
  total = out[i];
}

// No pointer parameters: the empty pattern.
__device__ float sink;
extern "C" __global__ void scaled(float a) {
  sink = a * a;
}
