// A kernel taking a struct by value whose float fields Kinase cannot carry
// gets no derivative kernels: its module holds the reason, which a
// differentiated launch of it reports: a __half2 field (host C++ copies the
// pair as a 32-bit integer) and a field of vector type. A __half field is
// carried (its adjoint an atomic add of half). A struct of
// pointers it reads, floats and doubles, with an array of floats, gets
// them; so does one writing through a struct's pointer field (the runtime
// copies what the field points to for the reverse kernel).
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --check-prefix=NONE --input-file=%t.ptx
//
// CHECK-DAG: .entry __kinase_krev___Z10half_scale8HalfArgs(
// CHECK-DAG: atom.global.add.noftz.f16
// CHECK-DAG: __kinase_kwhy__Z10pair_scale8PairArgs[{{[0-9]+}}] = {105, 116,
// CHECK-DAG: __kinase_kwhy__Z12vector_scale10VectorArgs[{{[0-9]+}}] = {105, 116,
// CHECK-DAG: .entry __kinase_krev___Z12writes_field3Out(
// CHECK-DAG: .entry __kinase_kfwd___Z12writes_field3Out(
// CHECK-DAG: .entry __kinase_krev_n__Z8weighted7WeightsPf(
// CHECK-DAG: .entry __kinase_kfwd_d__Z8weighted7WeightsPf(
// The struct's word (40 bytes, KINASE_PARAM_STRUCT, READ through its
// fields), out's, then the struct's pointer word: w at offset 0 and v at
// 32, bits 0 and 4; then its written word, 0 (PTX leaves trailing zeros
// out). writes_field's struct is READ and WRITTEN, y written (bit 0).
// CHECK-DAG: __kinase_kinfo__Z8weighted7WeightsPf[28] = {75, 73, 78, 49, 2, 0, 0, 0, {{[0-9]+}}, 0, 0, 0, 40, 0, 2, 4, 8, 0, {{[0-9]+}}, 0, 17};
// CHECK-DAG: __kinase_kinfo__Z12writes_field3Out[24] = {75, 73, 78, 49, 1, 0, 0, 0, 0, 0, 0, 0, 16, 0, 6, 4, 1, 0, 0, 0, 1};
// NONE-NOT: .entry __kinase_{{krev|kfwd}}_{{.*}}{{pair_scale|vector_scale}}

#include <cuda_fp16.h>

struct HalfArgs {
  float *x;
  __half scale;
};

__global__ void half_scale(HalfArgs a) { a.x[threadIdx.x] *= __half2float(a.scale); }

struct PairArgs {
  float *x;
  __half2 scale;
};

__global__ void pair_scale(PairArgs a) { a.x[threadIdx.x] *= __low2float(a.scale); }

typedef float float2v __attribute__((ext_vector_type(2)));

struct VectorArgs {
  float *x;
  float2v scale;
};

__global__ void vector_scale(VectorArgs a) { a.x[threadIdx.x] *= a.scale.x; }

struct Weights {
  const float *w;
  float c[3];
  double d;
  const float *v;
};

__global__ void weighted(Weights p, float *out) {
  int i = threadIdx.x;
  out[i] = p.w[i] * p.c[i % 3] + (float)p.d * p.v[i];
}

struct Out {
  float *y;
  float scale;
};

__global__ void writes_field(Out o) { o.y[threadIdx.x] *= o.scale; }
