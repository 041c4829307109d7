// The reverse of a store clears its location's adjoint; in device code the
// clear waits (lib/reverse/clears.c), but never past an add into shadow
// memory that may be the same location. Here each thread's result is
// written over its own input (out aliases in[0]), after a loop that reads
// in: the reverse must clear din[0] (the seed) before the loop adds
// 2 in[k] seed into din[k], or din[0] comes out 0. A second function whose
// loop reads only Const data lets the clear wait until after it.
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
// The clear comes before the loop that adds into din:
// CHECK-LABEL: .entry _Z9overwritePfS_i(
// CHECK: st.global.b32 [%rd{{[0-9]+}}], 0;
// CHECK: Inner Loop Header
// The loop reads only Const data: the clear waits until it is done.
// CHECK-LABEL: .entry _Z8weightedPfS_PKfS_i(
// CHECK-NOT: st.global
// CHECK: Inner Loop Header
// CHECK: st.global.b32 [%rd{{[0-9]+}}], 0;

#include <kinase.h>
#include "cuda_check.h"

enum { T = 512, M = 8 };

__device__ void sum_squares_over_first(float *out, float *in, int n) {
  float s = 0.f;
  for (int k = 0; k < n; k++)
    s += in[k] * in[k];
  *out = s;
}

/* out = in: the thread's result replaces its first input. */
__global__ void overwrite(float *in, float *din, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < T)
    __enzyme_autodiff((void *)sum_squares_over_first, enzyme_dup, in + M * i, din + M * i,
                      enzyme_dup, in + M * i, din + M * i, enzyme_const, n);
}

__device__ void weighted_sum(float *out, const float *w, const float *data, int n) {
  float s = 0.f;
  for (int k = 0; k < n; k++)
    s += data[k] * data[k];
  *out = s * w[0];
}

__global__ void weighted(float *out, float *dout, const float *w, float *dw, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < T)
    __enzyme_autodiff((void *)weighted_sum, enzyme_dupnoneed, out + i, dout + i, enzyme_dup, w + i,
                      dw + i, enzyme_const, w, enzyme_const, n);
}

int main(void) {
  static float in[T * M], din[T * M], w[T], dw[T], out[T], dout[T];
  for (int i = 0; i < T * M; i++) {
    in[i] = 0.25f + 0.01f * (i % 37);
    din[i] = i % M == 0 ? 1.0f : 0.0f; /* the seed of out, which is in[0] */
  }
  for (int i = 0; i < T; i++) {
    w[i] = 0.5f + 0.001f * i;
    dout[i] = 1.0f;
  }
  require_device();
  float *d_in = to_device(in), *d_din = to_device(din);
  overwrite<<<blocks_for(T, 128), 128>>>(d_in, d_din, M);
  check_kernel("overwrite");
  from_device(din, d_din);
  for (int i = 0; i < T * M; i++)
    check_close(din[i], 2.0 * in[i], 1e-6, "d in[0] / d in[%d] of thread %d", i % M, i / M);

  float *d_w = to_device(w), *d_dw = to_device(dw), *d_out = to_device(out), *d_dout = to_device(dout);
  weighted<<<blocks_for(T, 128), 128>>>(d_out, d_dout, d_w, d_dw, T);
  check_kernel("weighted");
  from_device(dw, d_dw);
  from_device(dout, d_dout);
  device_free_all();
  double squares = 0;
  for (int k = 0; k < T; k++)
    squares += (double)w[k] * w[k];
  for (int i = 0; i < T; i++) {
    /* w[i] is also data[i]: d/dw[i] of w[i] * sum_k w[k]^2 is the sum, as
     * data is Const. */
    check_close(dw[i], squares, 1e-5, "d out / d w of thread %d", i);
    check_close(dout[i], 0.0, 0, "the seed of thread %d, cleared", i);
  }
  return check_exit();
}
