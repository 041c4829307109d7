// A kernel taking a struct by value whose float fields Kinase cannot
// accumulate (a __half field) gets no derivative kernels: its module holds
// the reason, which a differentiated launch of it reports. A struct of
// pointers, floats and doubles, with an array of floats, gets them.
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --check-prefix=NONE --input-file=%t.ptx
//
// CHECK-DAG: __kinase_kwhy__Z10half_scale8HalfArgs[178] = {105, 116,
// CHECK-DAG: .entry __kinase_krev___Z8weighted7Weights(
// CHECK-DAG: .entry __kinase_kfwd___Z8weighted7Weights(
// The struct's word (40 bytes, KINASE_PARAM_STRUCT), then its pointer word:
// w at offset 0 and out at 32, bits 0 and 4.
// CHECK-DAG: __kinase_kinfo__Z8weighted7Weights[20] = {75, 73, 78, 49, 1, 0, 0, 0, {{[0-9]+}}, 0, 0, 0, 40, 0, 0, 4, 17};
// NONE-NOT: .entry __kinase_{{krev|kfwd}}_{{.*}}half_scale

#include <cuda_fp16.h>

struct HalfArgs {
  float *x;
  __half scale;
};

__global__ void half_scale(HalfArgs a) { a.x[threadIdx.x] *= __half2float(a.scale); }

struct Weights {
  const float *w;
  float c[3];
  double d;
  float *out;
};

__global__ void weighted(Weights p) {
  int i = threadIdx.x;
  p.out[i] = p.w[i] * p.c[i % 3] + (float)p.d;
}
