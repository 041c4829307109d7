// A kernel that calls a recursive __device__ function has a stack of no
// static size: the driver gives it 1 KB a thread (cudaLimitStackSize). A
// reverse kernel that kept a kilobyte of loop records in its own frame, as
// it does elsewhere, overflowed it: an illegal address on the GPU
// (test/cuda/hunt18-kernel-shapes.cu, the local array beside a recursive
// polynomial). Where the code may recurse the records in the frame take
// 128 bytes; the rest go to the launch's tape arena.
// REQUIRES: cuda
// RUN: %kinase-cc -O2 --cuda-device-only -S -emit-llvm %s -o - | FileCheck %s
// RUN: %kinase-cc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin

__device__ float poly(float x, int d) { return d == 0 ? 1.f : 1.f + x * poly(x, d - 1) / d; }

__device__ float ring(const float *x, int i, int n) {
  float a[4], s = 0;
#pragma unroll
  for (int k = 0; k < 4; k++) a[k] = x[(i + k) % n] * (k + 1);
#pragma unroll
  for (int k = 0; k < 4; k++) s += a[k] * a[(k + 1) & 3];
  return s;
}

extern "C" __global__ void recursive(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = ring(x, i, n) + poly(x[i], 5);
}

extern "C" __global__ void flat(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = ring(x, i, n);
}

// CHECK-LABEL: define ptx_kernel void @__kinase_krev_dn_recursive(
// CHECK: alloca { {{.*}}[16 x { float, float }] }
// CHECK-LABEL: define ptx_kernel void @__kinase_krev_dn_flat(
// CHECK: alloca { {{.*}}[128 x { float, float }] }
