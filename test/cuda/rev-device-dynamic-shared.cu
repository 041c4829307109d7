// extern __shared__ (dynamic shared memory) in a __device__ function
// differentiated inside a kernel: __enzyme_autodiff and __enzyme_fwddiff on
// a function that stages x_i^2 in the block's dynamic shared array and
// multiplies it with its neighbour's. The launch gives twice the dynamic
// shared memory the function uses: the derivative keeps the array's shadow
// in the second half. Each access is checked against that half at run time
// (a kernel launched without the room stops with a message rather than
// letting the shadow overwrite the values). Reverse and forward mode
// against analytic derivatives, float, at -O0 and -O2.
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
// The gradient kernel reads the size of dynamic shared memory, stops past
// its first half, and adds adjoints into the shadow there atomically after
// the mirrored barrier.
// CHECK-LABEL: .entry _Z9gradientsPKfPfi(
// CHECK:         %dynamic_smem_size
// CHECK:         bar.sync 0;
// CHECK:         atom.shared.add.f32
// CHECK:         ret;
// CHECK:         vprintf
// CHECK:         trap;

#include <kinase.h>
#include <math.h>
#include "cuda_check.h"
#include "neighbour_products.h"

enum { B = 128, BLOCKS = 19, N = B * BLOCKS - 29 };

// d/dx of sum over the block's threads of their products, each thread
// accumulating into the whole gradient (other threads' x reach its value).
__global__ void gradients(const float *x, float *dx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  __enzyme_autodiff((void *)neighbour_product, enzyme_dup, x, dx, enzyme_const, i, enzyme_const, n);
}

extern __device__ float __enzyme_fwddiff_f(void *, ...);

// Along all ones: the tangent of each thread's product.
__global__ void tangents(const float *x, const float *tx, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float t = __enzyme_fwddiff_f((void *)neighbour_product, enzyme_dup, x, tx, enzyme_const, i, enzyme_const, n);
  if (i < n)
    out[i] = t;
}

static float x[N];

int main(void) {
  require_device();
  static float ones[N], grad[N], tangent[N];
  for (int i = 0; i < N; i++) {
    x[i] = (float)(0.5 + fmod(0.618034 * i, 1.0));
    ones[i] = 1;
  }
  float *d_x = to_device(x), *d_dx = device_alloc<float>(N), *d_tx = to_device(ones);
  float *d_t = device_alloc<float>(N);
  check_cuda(cudaMemset(d_dx, 0, N * sizeof(float)), "cudaMemset");
  // The function uses B floats; twice that holds the shadow too.
  gradients<<<BLOCKS, B, 2 * B * sizeof(float)>>>(d_x, d_dx, N);
  check_kernel("gradients");
  tangents<<<BLOCKS, B, 2 * B * sizeof(float)>>>(d_x, d_tx, d_t, N);
  check_kernel("tangents");
  from_device(grad, d_dx);
  from_device(tangent, d_t);
  device_free_all();
  for (int i = 0; i < N; i++) {
    check_close(grad[i], neighbour_gradient(x, N, B, i), 1e-5, "d/dx[%d]", i);
    check_close(tangent[i], neighbour_tangent(x, N, B, i), 1e-5, "tangent[%d]", i);
  }
  return check_exit();
}
