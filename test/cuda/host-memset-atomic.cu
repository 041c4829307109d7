// cudaMemset of a temporary, then a kernel accumulating into it with
// atomicAdd (a weighted histogram), copied back and reduced on the host:
// loss = sum_b c_b (sum_{i in b} w_i v_i)^2, dw_i = 2 c_b S_b v_i. The
// request is an invoke (std::vector locals) and the function frees memory:
// before, the compiler crashed placing the deferred release after a call
// that the invoke had replaced.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_autodiff
// CHECK-DAG: @__kinase_launch_augment(ptr {{.*}}scatter
// CHECK-DAG: call void @__kinase_launch_reverse(
// CHECK-DAG: call void @__kinase_release_deferred()

#include <kinase.h>
#include <vector>
#include "cuda_check.h"

// Weighted histogram: bins[bin[i]] += w[i] * v[i], accumulated atomically
// into bins zeroed by cudaMemset.
__global__ void scatter(float *bins, const int *bin, const float *w, const float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[bin[i]], w[i] * v[i]);
}

// loss = sum_b c_b * bins_b^2
float binned_loss(const float *w, const float *v, const int *bin, const float *c, int n, int nbins) {
  float *bins;
  cudaMalloc(&bins, nbins * sizeof(float));
  cudaMemset(bins, 0, nbins * sizeof(float));
  scatter<<<(n + 255) / 256, 256>>>(bins, bin, w, v, n);
  std::vector<float> host(nbins);
  cudaMemcpy(host.data(), bins, nbins * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(bins);
  float loss = 0;
  for (int b = 0; b < nbins; b++)
    loss += c[b] * host[b] * host[b];
  return loss;
}

int main() {
  require_device();
  const int n = 4097, nbins = 37;
  std::vector<float> w(n), v(n), c(nbins);
  std::vector<int> bin(n);
  for (int i = 0; i < n; i++) {
    w[i] = 0.5f + 0.01f * (i % 7);
    v[i] = 0.001f * (i % 101) - 0.03f;
    bin[i] = (i * 7) % nbins;
  }
  for (int b = 0; b < nbins; b++)
    c[b] = 1.0f + 0.1f * b;
  float *d_w = to_device(w), *d_v = to_device(v), *d_dw = device_alloc<float>(n);
  int *d_bin = to_device(bin);
  check_cuda(cudaMemset(d_dw, 0, n * sizeof(float)), "memset");
  __enzyme_autodiff((void *)binned_loss, enzyme_dup, d_w, d_dw, enzyme_const, d_v,
                    enzyme_const, d_bin, enzyme_const, c.data(), enzyme_const, n,
                    enzyme_const, nbins);
  check_kernel("gradient of binned_loss");
  std::vector<double> sums(nbins, 0.0);
  for (int i = 0; i < n; i++)
    sums[bin[i]] += (double)w[i] * v[i];
  std::vector<float> dw(n);
  from_device(dw, d_dw);
  for (int i = 0; i < n; i++)
    check_close(dw[i], 2.0 * c[bin[i]] * sums[bin[i]] * v[i], 1e-4, "dw[%d]", i);
  return check_exit();
}
