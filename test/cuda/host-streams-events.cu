// Two streams: pinned host memory (cudaMallocHost), an async copy in on
// stream 0, an event the second stream waits for, a kernel per half on each
// stream, async copies out on each, cudaStreamSynchronize, then a sum on
// the host; streams, events and memory freed inside the function. Two
// active scalars come back as a struct through the user's own template
// prototype of __enzyme_autodiff, as in Enzyme's examples. y = a x + b x^2:
// dx = a + 2 b x, da = sum x, db = sum x^2. (Before, the request being an
// invoke among std::vector locals left the deferred releases after a call
// that was no longer there: a crash, at times, of the compiler.)
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --check-prefixes=CHECK,O0 --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --check-prefixes=CHECK,O2 --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The releases the forward sweep defers happen after the reverse sweep,
// which is an invoke here, on its normal path.
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_autodiff
// O0: invoke {{.*}}@__kinase_rev_{{.*}}two_streams
// O0-NEXT: to label %[[CONT:.*]] unwind
// O0: [[CONT]]:
// O0-NEXT: call void @__kinase_release_deferred()
// O2: call void @__kinase_release_deferred()

#define KINASE_NO_ENTRY_DECLS
#include <kinase.h>
#include <vector>
#include "cuda_check.h"

// Two active scalars: their gradients come back as a struct, through a
// prototype of the user's, as in Enzyme's examples.
struct Grads {
  float da, db;
};
template <typename T> T __enzyme_autodiff(void *, ...);

__global__ void scale_shift(float *y, const float *x, float a, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + b * x[i] * x[i];
}

// Two halves on two streams, async copies both ways from pinned host
// memory, an event ordering the second stream after the first's copy in.
float two_streams(const float *host_x, float a, float b, int n) {
  int h = n / 2;
  float *pinned_in, *pinned_out, *d_x, *d_y;
  cudaMallocHost(&pinned_in, n * sizeof(float));
  cudaMallocHost(&pinned_out, n * sizeof(float));
  for (int i = 0; i < n; i++)
    pinned_in[i] = host_x[i];
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  cudaStream_t s0, s1;
  cudaEvent_t copied;
  cudaStreamCreate(&s0);
  cudaStreamCreate(&s1);
  cudaEventCreate(&copied);
  cudaMemcpyAsync(d_x, pinned_in, n * sizeof(float), cudaMemcpyHostToDevice, s0);
  cudaEventRecord(copied, s0);
  cudaStreamWaitEvent(s1, copied, 0);
  scale_shift<<<(h + 127) / 128, 128, 0, s0>>>(d_y, d_x, a, b, h);
  scale_shift<<<(n - h + 127) / 128, 128, 0, s1>>>(d_y + h, d_x + h, a, b, n - h);
  cudaMemcpyAsync(pinned_out, d_y, h * sizeof(float), cudaMemcpyDeviceToHost, s0);
  cudaMemcpyAsync(pinned_out + h, d_y + h, (n - h) * sizeof(float), cudaMemcpyDeviceToHost, s1);
  cudaStreamSynchronize(s0);
  cudaStreamSynchronize(s1);
  float s = 0;
  for (int i = 0; i < n; i++)
    s += pinned_out[i];
  cudaEventDestroy(copied);
  cudaStreamDestroy(s0);
  cudaStreamDestroy(s1);
  cudaFree(d_x);
  cudaFree(d_y);
  cudaFreeHost(pinned_in);
  cudaFreeHost(pinned_out);
  return s;
}

int main() {
  require_device();
  const int n = 1001;
  const float a = 1.25f, b = -0.5f;
  std::vector<float> x(n), dx(n, 0.0f);
  for (int i = 0; i < n; i++)
    x[i] = 0.002f * i - 0.5f; /* sum x far from 0: float atomics add da in any order */
  Grads g = __enzyme_autodiff<Grads>((void *)two_streams, enzyme_dup, x.data(), dx.data(),
                                     enzyme_out, a, enzyme_out, b, enzyme_const, n);
  check_kernel("gradient of two_streams");
  double sum = 0, sum2 = 0;
  for (int i = 0; i < n; i++) {
    sum += x[i];
    sum2 += (double)x[i] * x[i];
    check_close(dx[i], a + 2.0 * b * x[i], 1e-5, "dx[%d]", i);
  }
  check_close(g.da, sum, 1e-4, "d a");
  check_close(g.db, sum2, 1e-4, "d b");
  return check_exit();
}
