// A host function that takes the kernel's struct by value and launches the
// kernel with it (clang copies the struct, pointers and floats alike, into
// the launch's argument: a memcpy, now taken apart field by field), the
// kernel using dynamic shared memory: out_i = s in_i in_{i+1}, neighbours
// within the block of B threads (cyclically). With w = dL/dout,
//   din_i = s (w_i in_{i+1} + w_{i-1} in_{i-1})   (indices within the block).
// The struct is enzyme_dup with a shadow struct holding din's address; its
// float field's adjoint stays in the callee's copy, as for any struct passed
// by value.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --check-prefix=HOST --input-file=%t.O0.ll
// RUN: FileCheck %s --check-prefix=LAUNCH --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK: .entry __kinase_krev_n__Z9neighbour6InputsPf(
// The augmented host function copies the struct field by field.
// HOST-LABEL: define internal {{.*}} @__kinase_aug__Z4host6InputsPf(
// HOST-NOT: @llvm.memcpy
// HOST: ret
// LAUNCH: call ptr @__kinase_launch_augment(ptr {{.*}}neighbour{{.*}}@kinase.text.dn

#include <kinase.h>
#include "cuda_check.h"

enum { N = 1024, B = 128 };

struct Inputs {
  const float *in;
  int n;
  float scale;
  int pad;
};

__global__ void neighbour(Inputs p, float *out) {
  extern __shared__ float tile[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < p.n ? p.in[i] : 0.0f;
  __syncthreads();
  if (i < p.n)
    out[i] = p.scale * tile[threadIdx.x] * tile[(threadIdx.x + 1) % blockDim.x];
}

void host(Inputs p, float *out) { neighbour<<<(p.n + B - 1) / B, B, B * sizeof(float)>>>(p, out); }

int main(void) {
  require_device();
  static float in[N], w[N], zeros[N], din[N];
  for (int i = 0; i < N; i++) {
    in[i] = (float)(0.3 + 0.5 * __builtin_sin(0.07 * i));
    w[i] = (float)(1.0 + 0.001 * i);
  }
  float *d_in = to_device(in), *d_din = to_device(zeros), *d_w = to_device(w), *d_out = device_alloc<float>(N);
  Inputs p = {d_in, N, 1.5f, 0}, dp = {d_din, N, 0.0f, 0};
  __enzyme_autodiff((void *)host, enzyme_dup, p, dp, enzyme_dupnoneed, d_out, d_w);
  check_kernel("host reverse");
  from_device(din, d_din);
  for (int i = 0; i < N; i++) {
    int base = i / B * B, t = i % B;
    int next = base + (t + 1) % B, prev = base + (t + B - 1) % B;
    double want = 1.5 * (w[i] * in[next] + w[prev] * in[prev]);
    check_close(din[i], want, 1e-5, "din[%d]", i);
  }
  device_free_all();
  return check_exit();
}
