// Stream compaction as event-selection code writes it: each thread whose
// sample passes a cut draws a slot with atomicAdd on a counter and writes
// its weighted value there; the host copies the count and the compacted
// values back and sums them. The slot a thread draws depends on the order
// the threads arrive in: a reverse kernel, which runs the kernel's work
// again after the kernel ran, would draw other slots (before, it did so
// silently, reading adjoints from beyond the compacted values). Such a
// kernel now gets no reverse kernels, and the module says why, so a
// reverse-mode launch stops with that message; its forward kernel runs in
// the kernel's place, drawing the slots once, so forward mode works:
// checked here, tangent sum_{x_i > cut} 2 w x_i t_i + x_i^2 t_w.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK: @__kinase_kwhy__Z6selectPfPiPKffi = {{.*}}c"it uses the value an atomic operation on memory returns
// CHECK-NOT: @__kinase_kwhy__Z11scale_valuesPfPKffi =
// PTX-NOT: .entry __kinase_krev_{{[a-z]+}}__Z6selectPfPiPKffi(
// PTX: .entry __kinase_kfwd_{{[a-z]+}}__Z6selectPfPiPKffi(

#include <kinase.h>
#include <algorithm>
#include <math.h>
#include <utility>
#include <vector>
#include "cuda_check.h"

enum { N = 2000 };
#define CUT 0.25f

__global__ void select(float *kept, int *count, const float *x, float w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > CUT) {
    int slot = atomicAdd(count, 1);
    kept[slot] = w * x[i] * x[i];
  }
}

__global__ void scale_values(float *y, const float *x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = s * x[i];
}

float selected_sum(const float *x, float *kept, int *count, float w, int n) {
  cudaMemset(count, 0, sizeof(int));
  select<<<(n + 255) / 256, 256>>>(kept, count, x, w, n);
  int m = 0;
  cudaMemcpy(&m, count, sizeof(int), cudaMemcpyDeviceToHost);
  std::vector<float> host(m);
  cudaMemcpy(host.data(), kept, m * sizeof(float), cudaMemcpyDeviceToHost);
  float total = 0;
  for (int k = 0; k < m; k++)
    total += host[k];
  return total;
}

int main() {
  require_device();
  const float w = 1.5f;
  std::vector<float> x(N), tx(N);
  for (int i = 0; i < N; i++) {
    x[i] = sinf(0.37f * i + 0.1f * (i % 7));
    tx[i] = cosf(0.11f * i);
  }
  float *d_x = to_device(x), *d_tx = to_device(tx);
  float *d_kept = device_alloc<float>(N), *d_tkept = device_alloc<float>(N);
  int *d_count = device_alloc<int>(1);
  double tangent = __enzyme_fwddiff((void *)selected_sum, enzyme_dup, d_x, d_tx, enzyme_dup,
                                    d_kept, d_tkept, enzyme_const, d_count, enzyme_dup, w, 0.5f,
                                    enzyme_const, N);
  check_kernel("tangent of selected_sum");
  double want = 0, value = 0;
  for (int i = 0; i < N; i++)
    if (x[i] > CUT) {
      want += 2.0 * w * x[i] * tx[i] + 0.5 * (double)x[i] * x[i];
      value += (double)w * x[i] * x[i];
    }
  check_close(tangent, want, 1e-4, "tangent along (tx, 0.5)");
  // Each compacted value with its tangent, in whatever order the slots
  // were drawn: sorted by value on both sides.
  int m = 0;
  check_cuda(cudaMemcpy(&m, d_count, sizeof m, cudaMemcpyDeviceToHost), "copy");
  std::vector<float> kept(m), tkept(m);
  check_cuda(cudaMemcpy(kept.data(), d_kept, m * sizeof(float), cudaMemcpyDeviceToHost), "copy");
  check_cuda(cudaMemcpy(tkept.data(), d_tkept, m * sizeof(float), cudaMemcpyDeviceToHost), "copy");
  std::vector<std::pair<double, double>> got, expected;
  for (int k = 0; k < m; k++)
    got.push_back({kept[k], tkept[k]});
  for (int i = 0; i < N; i++)
    if (x[i] > CUT)
      expected.push_back({(double)w * x[i] * x[i], 2.0 * w * x[i] * tx[i] + 0.5 * (double)x[i] * x[i]});
  std::sort(got.begin(), got.end());
  std::sort(expected.begin(), expected.end());
  check_within(m, (double)expected.size(), 0.0, "number of values kept");
  for (size_t k = 0; k < got.size() && k < expected.size(); k++) {
    check_close(got[k].first, expected[k].first, 1e-5, "kept value %zu", k);
    check_close(got[k].second, expected[k].second, 1e-4, "tangent of kept value %zu", k);
  }
  check_close(selected_sum(d_x, d_kept, d_count, w, N), value, 1e-4, "selected sum");
  device_free_all();
  return check_exit();
}
