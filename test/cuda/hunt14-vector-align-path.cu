// A kernel that picks a float4 path when its pointers are 16-byte aligned
// and a scalar path otherwise, `(uintptr_t)x % 16 == 0`, as vectorised
// CUDA code does; launched from a differentiated host function on aligned
// buffers and on buffers offset by one float (the scalar path), with an
// active scale. The alignment test turns the input's address into an
// integer, which the kernel info took for any use of the pointer: the
// read-only input counted as written ('n' in every reverse kernel), so the
// runtime copied its whole allocation before each launch, taking it for an
// in-place kernel. An address that only reaches comparisons reads and
// writes nothing.
//   loss(x, a) = sum_i (a x_i)^2 over both launches
//   d/dx_i = 2 a^2 x_i (each element once in each launch), d/da = 2 a sum x_i^2
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --input-file=%t.O0.ptx
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The input is read only: 'd' or 'c', the output 'n'.
// CHECK-DAG: .entry __kinase_krev_dn__Z5scale
// CHECK-DAG: .entry __kinase_krev_cn__Z5scale

#include <kinase.h>
#include <math.h>
#include <numeric>
#include <stdint.h>
#include <vector>
#include "cuda_check.h"

enum { N = 4096, THREADS = 128 };

__global__ void scale(const float *__restrict__ x, float *__restrict__ y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool aligned = reinterpret_cast<uintptr_t>(x) % 16 == 0 && reinterpret_cast<uintptr_t>(y) % 16 == 0;
  if (aligned) {
    if (4 * i + 3 < n) {
      float4 v = reinterpret_cast<const float4 *>(x)[i];
      v.x *= a;
      v.y *= a;
      v.z *= a;
      v.w *= a;
      reinterpret_cast<float4 *>(y)[i] = v;
    }
  } else {
    for (int k = 0; k < 4; k++)
      if (4 * i + k < n)
        y[4 * i + k] = a * x[4 * i + k];
  }
}

static float sum_squares(const float *d, int n) {
  std::vector<float> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
  return std::inner_product(h.begin(), h.end(), h.begin(), 0.0f);
}

// x holds n + 1 floats: x[0..n) aligned, x[1..n] not.
float loss(const float *x, float a, int n) {
  float *y;
  cudaMalloc(&y, (n + 4) * sizeof(float));
  int blocks = (n / 4 + THREADS) / THREADS;
  scale<<<blocks, THREADS>>>(x, y, a, n);
  float s = sum_squares(y, n);
  scale<<<blocks, THREADS>>>(x + 1, y + 1, a, n);
  s += sum_squares(y + 1, n);
  cudaFree(y);
  return s;
}

int main() {
  require_device();
  std::vector<float> x(N + 1), zero(N + 1, 0.f);
  for (int i = 0; i <= N; i++)
    x[i] = sinf(0.21f * i) + 0.1f;
  const float a = 1.3f;
  float *d_x = to_device(x), *d_dx = to_device(zero);
  double da = __enzyme_autodiff((void *)loss, enzyme_dup, d_x, d_dx, a, enzyme_const, N);
  check_kernel("gradient of loss");
  std::vector<float> dx(N + 1);
  from_device(dx, d_dx);
  double da_want = 0;
  for (int i = 0; i <= N; i++) {
    int uses = (i < N) + (i >= 1); // in the aligned launch, in the offset one
    check_close(dx[i], uses * 2.0 * a * a * x[i], 1e-4, "dloss/dx[%d]", i);
    da_want += uses * 2.0 * a * x[i] * x[i];
  }
  check_close(da, da_want, 1e-4, "dloss/da");
  device_free_all();
  return check_exit();
}
