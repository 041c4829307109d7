// Zero-copy output and a texture of features, as a host function sets them
// up around a launch: the kernel reads features through a texture object
// the function creates over linear device memory (cudaCreateTextureObject,
// destroyed at its end) and writes into mapped pinned host memory through
// the device address cudaHostGetDevicePointer gives; the host sums what it
// reads back. Kinase refused all three ("CUDA API function
// 'cudaCreateTextureObject' has no derivative rule", the kernel's assembly
// "tex.1d.v4.f32.s32"). Now the texture's values are constants (the remark
// says so), its destroy waits for the reverse sweep, whose kernel fetches
// again, and the mapped address's shadow is the device address of the host
// memory's shadow, so the reverse kernel reads the host's adjoints.
//   loss = sum_i (w_i feat_i + w_i^2):  dloss/dw_i = feat_i + 2 w_i
// Reverse and forward mode, against the analytic gradient.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S -Rpass-missed=kinase %s -o %t.ptx 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// REMARK: hunt13-mapped-texture.cu:{{[0-9]+}}:{{[0-9]+}}: remark: gradient of '{{.*}}weighted{{.*}}': the value read from a texture is a constant
// The host: the mapped shadow, and the texture's destroy deferred (kind 8).
// CHECK: call ptr @__kinase_mapped_shadow(
// CHECK: call void @__kinase_defer_release(i32 8,

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 1000, THREADS = 128 };

__global__ void weighted(float *y, const float *w, cudaTextureObject_t feat, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = w[i] * tex1Dfetch<float>(feat, i) + w[i] * w[i];
}

float loss(const float *w, const float *feat, int n) {
  cudaResourceDesc resource = {};
  resource.resType = cudaResourceTypeLinear;
  resource.res.linear.devPtr = (void *)feat;
  resource.res.linear.desc = cudaCreateChannelDesc<float>();
  resource.res.linear.sizeInBytes = n * sizeof(float);
  cudaTextureDesc texture = {};
  texture.readMode = cudaReadModeElementType;
  cudaTextureObject_t tex;
  cudaCreateTextureObject(&tex, &resource, &texture, nullptr);
  float *host_y, *device_y;
  cudaHostAlloc(&host_y, n * sizeof(float), cudaHostAllocMapped);
  cudaHostGetDevicePointer(&device_y, host_y, 0);
  weighted<<<(n + THREADS - 1) / THREADS, THREADS>>>(device_y, w, tex, n);
  cudaDeviceSynchronize();
  float sum = 0;
  for (int i = 0; i < n; i++)
    sum += host_y[i];
  cudaFreeHost(host_y);
  cudaDestroyTextureObject(tex);
  return sum;
}

int main() {
  require_device();
  std::vector<float> w(N), feat(N), tw(N);
  for (int i = 0; i < N; i++) {
    w[i] = 0.5f * sinf(0.1f * i);
    feat[i] = cosf(0.07f * i);
    tw[i] = sinf(0.3f * i + 1.0f);
  }
  float *d_w = to_device(w), *d_dw = device_alloc<float>(N), *d_tw = to_device(tw);
  float *d_feat = to_device(feat);
  check_cuda(cudaMemset(d_dw, 0, N * sizeof(float)), "memset");
  __enzyme_autodiff((void *)loss, enzyme_dup, d_w, d_dw, enzyme_const, d_feat, enzyme_const, N);
  check_kernel("gradient of loss");
  double tangent = __enzyme_fwddiff((void *)loss, enzyme_dup, d_w, d_tw, enzyme_const, d_feat, enzyme_const, N);
  check_kernel("tangent of loss");
  std::vector<float> dw(N);
  from_device(dw, d_dw);
  double t_want = 0;
  for (int i = 0; i < N; i++) {
    double want = feat[i] + 2.0 * w[i];
    check_close(dw[i], want, 1e-5, "dloss/dw[%d]", i);
    t_want += want * tw[i];
  }
  check_close(tangent, t_want, 1e-4, "tangent");
  device_free_all();
  return check_exit();
}
