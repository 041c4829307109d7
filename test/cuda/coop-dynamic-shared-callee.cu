// extern __shared__ (dynamic shared memory) in a __device__ function that a
// kernel calls, the kernel launched with the memory sized at the launch from
// host code differentiated as a whole: each thread stages x_i^2 in shared
// memory and multiplies it with its neighbour's in the block. The derivative
// kernels see the callee's array once it is inlined (the copy they are made
// from passes the region as a parameter) and keep its shadow in the second
// half of twice the dynamic shared memory. Reverse and forward mode against
// analytic derivatives. (In a device-side request the launch sized the
// region without room for a shadow: there it stays a located error,
// test/errors/device-atomics-and-dynamic-shared.cu.)
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: not grep kwhy %t.O0.ptx %t.ptx
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The reverse kernel finds the shadow half through %dynamic_smem_size and
// adds adjoints into it atomically, between the mirrored barriers.
// CHECK-LABEL: .entry __kinase_krev_{{[a-z]+}}__Z8productsPfPKfi(
// CHECK:         %dynamic_smem_size
// CHECK:         bar.sync 0;
// CHECK:         atom.shared.add.f32
// CHECK:         ret;

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"
#include "neighbour_products.h"

enum { B = 128, BLOCKS = 23, N = B * BLOCKS - 37 };

__global__ void products(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = neighbour_product(x, i, n);
  if (i < n)
    y[i] = v;
}

void all_products(float *y, const float *x, int n) {
  products<<<(n + B - 1) / B, B, B * sizeof(float)>>>(y, x, n);
}

static float x[N];

int main(void) {
  require_device();
  static float ones[N], grad[N], tangent[N];
  for (int i = 0; i < N; i++) {
    x[i] = (float)(0.5 + fmod(0.618034 * i, 1.0));
    ones[i] = 1;
  }
  float *d_x = to_device(x), *d_dx = device_alloc<float>(N), *d_y = device_alloc<float>(N);
  float *d_dy = to_device(ones), *d_tx = to_device(ones), *d_ty = device_alloc<float>(N);
  check_cuda(cudaMemset(d_dx, 0, N * sizeof(float)), "cudaMemset");
  __enzyme_autodiff((void *)all_products, enzyme_dupnoneed, d_y, d_dy, enzyme_dup, d_x, d_dx, N);
  check_kernel("reverse");
  from_device(grad, d_dx);
  __enzyme_fwddiff((void *)all_products, enzyme_dup, d_y, d_ty, enzyme_dup, d_x, d_tx, N);
  check_kernel("forward");
  from_device(tangent, d_ty);
  device_free_all();
  for (int i = 0; i < N; i++) {
    check_close(grad[i], neighbour_gradient(x, N, B, i), 1e-5, "d/dx[%d]", i);
    check_close(tangent[i], neighbour_tangent(x, N, B, i), 1e-5, "tangent[%d]", i);
  }
  return check_exit();
}
