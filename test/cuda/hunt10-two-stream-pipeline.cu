// A two-stream pipeline as a performance-minded scientist writes it: the
// device buffers from cudaMallocAsync on a non-blocking stream, the host
// input's two halves copied with cudaMemcpyAsync on two streams, a kernel
// per half on its own stream, an event recorded on the second stream that
// the first waits for (cudaStreamWaitEvent) before a kernel pairing the
// halves, the result copied back asynchronously into the caller's host
// array, then cudaStreamSynchronize and cudaFreeAsync. r_i = exp(u_i) *
// sin(v_i) with u = first half scaled, v = second half scaled; the
// gradient lands in the host shadow of the input. Reverse and forward mode.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { HALF = 513 };

__global__ void scale_by(float *y, const float *x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = s * x[i];
}

__global__ void pair(float *r, const float *u, const float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    r[i] = expf(u[i]) * sinf(v[i]);
}

// x: 2 * half host floats; r: half host floats.
void pipeline(const float *x, float *r, int half) {
  cudaStream_t s1, s2;
  cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  cudaEvent_t second_done;
  cudaEventCreateWithFlags(&second_done, cudaEventDisableTiming);
  size_t bytes = half * sizeof(float);
  float *a, *b, *u, *v, *d_r;
  cudaMallocAsync(&a, bytes, s1);
  cudaMallocAsync(&u, bytes, s1);
  cudaMallocAsync(&d_r, bytes, s1);
  cudaMallocAsync(&b, bytes, s2);
  cudaMallocAsync(&v, bytes, s2);
  int blocks = (half + 127) / 128;
  cudaMemcpyAsync(a, x, bytes, cudaMemcpyHostToDevice, s1);
  cudaMemcpyAsync(b, x + half, bytes, cudaMemcpyHostToDevice, s2);
  scale_by<<<blocks, 128, 0, s1>>>(u, a, 0.5f, half);
  scale_by<<<blocks, 128, 0, s2>>>(v, b, 2.0f, half);
  cudaEventRecord(second_done, s2);
  cudaStreamWaitEvent(s1, second_done, 0);
  pair<<<blocks, 128, 0, s1>>>(d_r, u, v, half);
  cudaMemcpyAsync(r, d_r, bytes, cudaMemcpyDeviceToHost, s1);
  cudaStreamSynchronize(s1);
  cudaFreeAsync(b, s2);
  cudaFreeAsync(v, s2);
  cudaFreeAsync(a, s1);
  cudaFreeAsync(u, s1);
  cudaFreeAsync(d_r, s1);
  cudaStreamSynchronize(s2);
  cudaStreamSynchronize(s1);
  cudaEventDestroy(second_done);
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
}

int main() {
  require_device();
  std::vector<float> x(2 * HALF), dx(2 * HALF, 0.0f), r(HALF), dr(HALF), tx(2 * HALF), tr(HALF);
  for (int i = 0; i < 2 * HALF; i++) {
    x[i] = 0.8f * sinf(0.013f * i * i);
    tx[i] = cosf(0.2f * i);
  }
  for (int i = 0; i < HALF; i++)
    dr[i] = 1.0f + 0.001f * i;
  std::vector<float> seed = dr;
  __enzyme_autodiff((void *)pipeline, enzyme_dup, x.data(), dx.data(), enzyme_dupnoneed, r.data(),
                    dr.data(), enzyme_const, HALF);
  check_kernel("gradient of pipeline");
  for (int i = 0; i < HALF; i++) {
    double u = 0.5 * x[i], v = 2.0 * x[HALF + i];
    check_close(dx[i], seed[i] * 0.5 * exp(u) * sin(v), 1e-4, "dx[%d]", i);
    check_close(dx[HALF + i], seed[i] * 2.0 * exp(u) * cos(v), 1e-4, "dx[%d]", HALF + i);
    check_within(dr[i], 0.0, 0.0, "dr[%d] consumed", i);
  }
  __enzyme_fwddiff((void *)pipeline, enzyme_dup, x.data(), tx.data(), enzyme_dup, r.data(),
                   tr.data(), enzyme_const, HALF);
  check_kernel("tangent of pipeline");
  for (int i = 0; i < HALF; i++) {
    double u = 0.5 * x[i], v = 2.0 * x[HALF + i];
    check_close(r[i], exp(u) * sin(v), 1e-5, "r[%d]", i);
    double want = exp(u) * (0.5 * tx[i] * sin(v) + 2.0 * tx[HALF + i] * cos(v));
    check_close(tr[i], want, 1e-4, "tr[%d]", i);
  }
  return check_exit();
}
