// The adjoints of a launch's by-value scalars are summed per block (warp
// shuffles, then shared memory) before one atomic add per block into the
// accumulator:
//  - axpy: y = alpha * x + y in place, alpha a float, x Const:
//    dalpha = sum dy * x, over 2^20 threads in blocks of 256;
//  - odd_blocks: blocks of 3-D shape (7, 5, 3), 105 threads: a partial
//    warp in every block, lanes adding one by one into shared memory; an
//    active double: d/da = sum x^2 dy;
//  - struct_fields: a struct by value with a float and a double field built
//    in the host function from its scalars, its field adjoints summed the
//    same way (blocks of 96 threads): d/dc = sum x dy, d/dd = sum x^2 dy.
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
// The first thread clears the block's slot, the warps add their totals into
// it, and the first thread adds the block's total into the accumulator:
// CHECK-LABEL: .entry __kinase_krev_{{[a-z]+}}__Z11axpy_kernelPfPKffi(
// CHECK: st.shared.b32 [__kinase_block_sums{{.*}}], 0;
// CHECK-NEXT: $L
// CHECK-NEXT: barrier.sync 0;
// CHECK: shfl.sync.bfly.b32
// CHECK: atom.shared.add.f32
// CHECK: barrier.sync 0;
// CHECK: ld.shared.b32 [[TOTAL:%r[0-9]+]], [__kinase_block_sums
// CHECK-NEXT: atom.global.add.f32 {{%r[0-9]+}}, [{{%rd[0-9]+}}], [[TOTAL]];
// CHECK: .entry
//
// A double is summed in double:
// CHECK-LABEL: .entry __kinase_krev_{{[a-z]+}}__Z10odd_kernelPfPKfdfi(
// CHECK: atom.shared.add.f64
// CHECK: atom.global.add.f64

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"

__global__ void axpy_kernel(float *y, const float *x, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = alpha * x[i] + y[i];
}

void axpy(float *y, const float *x, float alpha, int n) {
  axpy_kernel<<<(n + 255) / 256, 256>>>(y, x, alpha, n);
}

__global__ void odd_kernel(float *y, const float *x, double a, float b, int n) {
  int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  int i = blockIdx.x * (blockDim.x * blockDim.y * blockDim.z) + t;
  if (i < n)
    y[i] = (float)(a * x[i] * x[i]) + b;
}

void odd_blocks(float *y, const float *x, double a, float b, int n) {
  dim3 block(7, 5, 3);
  odd_kernel<<<(n + 104) / 105, block>>>(y, x, a, b, n);
}

struct Coeffs {
  float c;
  double d;
  int unused;
};

__global__ void struct_kernel(float *y, const float *x, Coeffs k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = k.c * x[i] + (float)(k.d * x[i] * x[i]);
}

void struct_fields(float *y, const float *x, float c, double d, int n) {
  Coeffs k = {c, d, 7};
  struct_kernel<<<(n + 95) / 96, 96>>>(y, x, k, n);
}

static std::vector<float> inputs(int n) {
  std::vector<float> x(n);
  for (int i = 0; i < n; i++)
    x[i] = sinf(0.01f * i) + 0.25f;
  return x;
}

static std::vector<float> seeds(int n) {
  std::vector<float> dy(n);
  for (int i = 0; i < n; i++)
    dy[i] = 1.f + 0.5f * cosf(0.003f * i);
  return dy;
}

static void check_axpy() {
  const int n = 1 << 20;
  std::vector<float> x = inputs(n), dy = seeds(n), y(n, 1.f), dy_after(n);
  float *d_x = to_device(x), *d_y = to_device(y), *d_dy = to_device(dy);
  double dalpha = __enzyme_autodiff((void *)axpy, enzyme_dup, d_y, d_dy, enzyme_const, d_x, enzyme_out,
                                    0.75f, enzyme_const, n);
  check_kernel("axpy");
  double want = 0;
  for (int i = 0; i < n; i++)
    want += (double)dy[i] * x[i];
  check_close(dalpha, want, 1e-4, "axpy: dalpha");
  from_device(dy_after, d_dy);
  for (int i = 0; i < n; i += 997)
    check_close(dy_after[i], dy[i], 1e-6, "axpy: dy[%d] passes through", i);
}

static void check_odd_blocks() {
  const int n = 10000;
  std::vector<float> x = inputs(n), dy = seeds(n), y(n), dx(n, 0.f);
  float *d_x = to_device(x), *d_y = device_alloc<float>(n), *d_dy = to_device(dy), *d_dx = to_device(dx);
  double got = __enzyme_autodiff((void *)odd_blocks, enzyme_dup, d_y, d_dy, enzyme_dup, d_x, d_dx, enzyme_out,
                                 1.5, enzyme_const, 0.5f, enzyme_const, n);
  check_kernel("odd_blocks");
  double da = 0;
  for (int i = 0; i < n; i++)
    da += (double)x[i] * x[i] * dy[i];
  check_close(got, da, 1e-6, "odd_blocks: d/da");
  from_device(dx, d_dx);
  for (int i = 0; i < n; i += 101)
    check_close(dx[i], 2 * 1.5 * x[i] * dy[i], 1e-5, "odd_blocks: dx[%d]", i);
}

static void check_struct_fields() {
  const int n = 5000;
  std::vector<float> x = inputs(n), dy = seeds(n), y(n);
  float *d_x = to_device(x), *d_y = device_alloc<float>(n), *d_dy = to_device(dy), *d_dy2 = to_device(dy);
  double dc = 0, dd = 0;
  for (int i = 0; i < n; i++) {
    dc += (double)x[i] * dy[i];
    dd += (double)x[i] * x[i] * dy[i];
  }
  double got_c = __enzyme_autodiff((void *)struct_fields, enzyme_dup, d_y, d_dy, enzyme_const, d_x, enzyme_out,
                                   0.5f, enzyme_const, -0.25, enzyme_const, n);
  check_kernel("struct_fields c");
  check_close(got_c, dc, 1e-4, "struct_fields: d/dc");
  double got_d = __enzyme_autodiff((void *)struct_fields, enzyme_dup, d_y, d_dy2, enzyme_const, d_x, enzyme_const,
                                   0.5f, enzyme_out, -0.25, enzyme_const, n);
  check_kernel("struct_fields d");
  check_close(got_d, dd, 1e-5, "struct_fields: d/dd");
}

int main() {
  require_device();
  check_axpy();
  check_odd_blocks();
  check_struct_fields();
  device_free_all();
  return check_exit();
}
