// A launch given device memory whose origin has no shadow (returned by a
// function in another file, or cached in a static global) while other
// arguments carry derivatives: the host cannot see what the kernel writes
// there, and when the code reads the memory back, a gradient through it
// would be lost without a word (it was: the launch passed it Const and the
// copy's reverse had no source shadow). A located error instead, in both
// modes. Memory of such origin that the kernel only reads (a data set) is
// Const as before: see the end of this file, which must compile.
// REQUIRES: cuda
// RUN: not %kinase-cc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %kinase-cc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: %kinase-cc -O2 -DONLY_READ -c %s -o /dev/null
#include <kinase.h>
#include <cuda_runtime.h>

__global__ void square(float *out, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = x[i] * x[i];
}

__global__ void scale(float *out, const float *x, const float *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = x[i] * data[i];
}

static float summed(const float *dev, int n) {
  float h[64], s = 0;
  cudaMemcpy(h, dev, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; i++)
    s += h[i];
  return s;
}

#ifndef ONLY_READ
float *workspace(int n);

// CHECK: cuda-launch-unseen-memory.cu:[[@LINE+3]]:3: error: kinase: cannot differentiate 'opaque_workspace(float const*, int)': it launches kernel 'square' with memory returned by 'workspace(int)' as argument 1, which has no shadow, and reads that memory back
float opaque_workspace(const float *x, int n) {
  float *out = workspace(n);
  square<<<1, 64>>>(out, x, n);
  return summed(out, n);
}

static float *cached;
static float *cached_workspace(int n) {
  if (!cached)
    cudaMalloc(&cached, n * sizeof(float));
  return cached;
}

// CHECK: cuda-launch-unseen-memory.cu:[[@LINE+3]]:3: error: kinase: cannot differentiate 'static_workspace(float const*, int)': it launches kernel 'square' with memory returned by 'cached_workspace(int)' as argument 1
float static_workspace(const float *x, int n) {
  float *out = cached_workspace(n);
  square<<<1, 64>>>(out, x, n);
  return summed(out, n);
}

// CHECK: cuda-launch-unseen-memory.cu:[[@LINE+2]]:3: error: kinase: cannot differentiate 'global_workspace(float const*, int)': it launches kernel 'square' with memory held in global 'cached' as argument 1
float global_workspace(const float *x, int n) {
  square<<<1, 64>>>(cached, x, n);
  return summed(cached, n);
}

void gradients(const float *x, float *dx, int n) {
  __enzyme_autodiff((void *)opaque_workspace, enzyme_dup, x, dx, enzyme_const, n);
  __enzyme_autodiff((void *)static_workspace, enzyme_dup, x, dx, enzyme_const, n);
  __enzyme_fwddiff((void *)global_workspace, enzyme_dup, x, dx, enzyme_const, n);
}
#else
const float *dataset(int n);

float read_only_data(const float *x, float *out, int n) {
  scale<<<1, 64>>>(out, x, dataset(n), n);
  return summed(out, n);
}

void gradients(const float *x, float *dx, float *out, float *dout, int n) {
  __enzyme_autodiff((void *)read_only_data, enzyme_dup, x, dx, enzyme_dup, out, dout, enzyme_const, n);
}
#endif
