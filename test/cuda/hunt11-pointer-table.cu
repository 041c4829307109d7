// A kernel reading one buffer a block through a table of device pointers
// (`float *const *xs`), as batched code does: the host function builds the
// table in a host array, copies it to the device and launches; or it is
// given a device table, with a device table of the buffers' shadows as its
// shadow. Kinase used to give such a parameter no shadow (no float moves
// through it directly): the buffers' gradients were lost, and the reverse
// of the table's copy stopped, unable to tell its elements' type. Now the
// parameter is a table (KINASE_PARAM_TABLE) whose shadow holds the
// buffers' shadows: the runtime keeps the shadows of a copy of memory of
// no known type and puts them in the table's shadow when a launch takes
// it as a table. loss = sum over buffers of sqrt(sum of squares);
// reverse mode both ways, forward mode with the user's tables.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The table has a shadow in one reverse kernel (d) and none in the other.
// PTX-DAG: .entry __kinase_krev_dn__Z12batched_norm
// PTX-DAG: .entry __kinase_krev_cn__Z12batched_norm
// The copy of the table keeps the shadows of the host array.
// CHECK: call void @__kinase_copy_shadow_record(ptr {{.*}}, i64 32,
// CHECK-NEXT: {{call|invoke}} {{.*}}@cudaMemcpy(

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { BATCH = 4, N = 300 };

__global__ void batched_norm(float *const *xs, float *out, int n) {
  const float *x = xs[blockIdx.x];
  float s = 0.f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += x[i] * x[i];
  atomicAdd(&out[blockIdx.x], s);
}

static float finish(float *d_out, int batch) {
  std::vector<float> out(batch);
  cudaMemcpy(out.data(), d_out, batch * sizeof(float), cudaMemcpyDeviceToHost);
  float t = 0.f;
  for (float v : out)
    t += sqrtf(v);
  return t;
}

// bufs: a host array of device pointers.
float total_host_table(float **bufs, int batch, int n) {
  float **table, *d_out;
  cudaMalloc(&table, batch * sizeof(float *));
  cudaMalloc(&d_out, batch * sizeof(float));
  cudaMemset(d_out, 0, batch * sizeof(float));
  cudaMemcpy(table, bufs, batch * sizeof(float *), cudaMemcpyHostToDevice);
  batched_norm<<<batch, 64>>>(table, d_out, n);
  float t = finish(d_out, batch);
  cudaFree(table);
  cudaFree(d_out);
  return t;
}

// table: a device array of device pointers.
float total_device_table(float **table, int batch, int n) {
  float *d_out;
  cudaMalloc(&d_out, batch * sizeof(float));
  cudaMemset(d_out, 0, batch * sizeof(float));
  batched_norm<<<batch, 64>>>(table, d_out, n);
  float t = finish(d_out, batch);
  cudaFree(d_out);
  return t;
}

int main() {
  require_device();
  std::vector<std::vector<float>> h(BATCH, std::vector<float>(N));
  std::vector<float *> bufs(BATCH), grads(BATCH), tangents(BATCH);
  for (int b = 0; b < BATCH; b++) {
    for (int i = 0; i < N; i++)
      h[b][i] = sinf(0.1f * i + b) + 0.1f * b;
    bufs[b] = to_device(h[b]);
    grads[b] = device_alloc<float>(N);
    tangents[b] = device_alloc<float>(N);
    std::vector<float> dir(N, 1.0f);
    check_cuda(cudaMemcpy(tangents[b], dir.data(), N * sizeof(float), cudaMemcpyHostToDevice), "tangent");
  }
  float **d_table = device_alloc<float *>(BATCH), **d_grads = device_alloc<float *>(BATCH);
  float **d_tangents = device_alloc<float *>(BATCH);
  check_cuda(cudaMemcpy(d_table, bufs.data(), sizeof(float *) * BATCH, cudaMemcpyHostToDevice), "table");
  check_cuda(cudaMemcpy(d_grads, grads.data(), sizeof(float *) * BATCH, cudaMemcpyHostToDevice), "grads");
  check_cuda(cudaMemcpy(d_tangents, tangents.data(), sizeof(float *) * BATCH, cudaMemcpyHostToDevice), "tangents");
  std::vector<double> norm(BATCH);
  double want_tangent = 0.0;
  for (int b = 0; b < BATCH; b++) {
    double s = 0.0, sum = 0.0;
    for (int i = 0; i < N; i++) {
      s += (double)h[b][i] * h[b][i];
      sum += h[b][i];
    }
    norm[b] = sqrt(s);
    want_tangent += sum / norm[b];
  }
  for (int way = 0; way < 2; way++) {
    for (int b = 0; b < BATCH; b++)
      check_cuda(cudaMemset(grads[b], 0, N * sizeof(float)), "memset");
    if (way == 0)
      __enzyme_autodiff((void *)total_host_table, enzyme_dup, bufs.data(), grads.data(), enzyme_const, BATCH,
                        enzyme_const, N);
    else
      __enzyme_autodiff((void *)total_device_table, enzyme_dup, d_table, d_grads, enzyme_const, BATCH,
                        enzyme_const, N);
    check_kernel(way == 0 ? "gradient through the host table" : "gradient through the device table");
    for (int b = 0; b < BATCH; b++) {
      std::vector<float> g(N);
      from_device(g, grads[b]);
      for (int i = 0; i < N; i++)
        check_close(g[i], h[b][i] / norm[b], 1e-4, "way %d: d/dx[%d][%d]", way, b, i);
    }
  }
  double t = __enzyme_fwddiff((void *)total_device_table, enzyme_dup, d_table, d_tangents,
                             enzyme_const, BATCH, enzyme_const, N);
  check_kernel("tangent through the device table");
  check_close(t, want_tangent, 1e-4, "tangent along ones");
  device_free_all();
  return check_exit();
}
