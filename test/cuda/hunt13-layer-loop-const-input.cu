// A stack of layers run by a range-for over a std::vector of layers, each
// launch reading the previous layer's output, the first the input data
// (enzyme_const): `const float *in = x; for (const Layer &L : layers) {
// acts.emplace_back(n); layer<<<...>>>(acts.back().data(), in, L.w, n);
// in = acts.back().data(); }`, with RAII buffers moved into a
// std::vector. The pointer `in` merges the Const input with buffers that
// have shadows, which was an error ("a pointer here may point either to
// memory with a shadow ... or to memory without one"). Where such a
// pointer only reaches kernels (launches, copies from it), its shadow is
// null for the Const input, as a Const pointer's is: the first launch gets
// the input Const.
//   a_0 = x, a_l = tanh(w_l * a_{l-1}) elementwise, loss = sum_i a_L[i]
// Per-layer weights' gradients against a hand-written backward pass;
// forward mode along a direction against the gradient.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
//
// The merged pointer's shadow: null for the input, the buffer's after.
// CHECK: phi ptr [ null, {{.*}} ]

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 1000, LAYERS = 3, THREADS = 128 };

__global__ void layer(float *out, const float *in, const float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tanhf(w[i] * in[i]);
}

class Buffer {
public:
  explicit Buffer(int n) { cudaMalloc(&p_, n * sizeof(float)); }
  Buffer(Buffer &&o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  Buffer(const Buffer &) = delete;
  ~Buffer() {
    if (p_)
      cudaFree(p_);
  }
  float *data() const { return p_; }

private:
  float *p_ = nullptr;
};

struct Layer {
  const float *w;
};

float loss(const std::vector<Layer> &layers, const float *x, int n) {
  std::vector<Buffer> acts;
  acts.reserve(layers.size());
  const float *in = x;
  for (const Layer &L : layers) {
    acts.emplace_back(n);
    layer<<<(n + THREADS - 1) / THREADS, THREADS>>>(acts.back().data(), in, L.w, n);
    in = acts.back().data();
  }
  std::vector<float> h(n);
  cudaMemcpy(h.data(), in, n * sizeof(float), cudaMemcpyDeviceToHost);
  float s = 0;
  for (float v : h)
    s += v;
  return s;
}

int main() {
  require_device();
  std::vector<float> x(N), w(LAYERS * N), tw(LAYERS * N);
  for (int i = 0; i < N; i++)
    x[i] = sinf(0.05f * i);
  for (int k = 0; k < LAYERS * N; k++) {
    w[k] = 0.8f + 0.3f * cosf(0.11f * k);
    tw[k] = sinf(0.7f * k + 0.3f);
  }
  float *d_x = to_device(x), *d_w = to_device(w), *d_dw = device_alloc<float>(LAYERS * N),
        *d_tw = to_device(tw);
  check_cuda(cudaMemset(d_dw, 0, LAYERS * N * sizeof(float)), "memset");
  std::vector<Layer> layers(LAYERS), dlayers(LAYERS), tlayers(LAYERS);
  for (int l = 0; l < LAYERS; l++) {
    layers[l].w = d_w + l * N;
    dlayers[l].w = d_dw + l * N;
    tlayers[l].w = d_tw + l * N;
  }
  __enzyme_autodiff((void *)loss, enzyme_dup, &layers, &dlayers, enzyme_const, d_x, enzyme_const, N);
  check_kernel("gradient of loss");
  double tangent = __enzyme_fwddiff((void *)loss, enzyme_dup, &layers, &tlayers, enzyme_const, d_x, enzyme_const, N);
  check_kernel("tangent of loss");
  std::vector<float> dw(LAYERS * N);
  from_device(dw, d_dw);
  double t_want = 0;
  for (int i = 0; i < N; i++) {
    double a[LAYERS + 1];
    a[0] = x[i];
    for (int l = 0; l < LAYERS; l++)
      a[l + 1] = tanh(w[l * N + i] * a[l]);
    double da = 1.0; // d loss / d a_L
    for (int l = LAYERS - 1; l >= 0; l--) {
      double dz = da * (1.0 - a[l + 1] * a[l + 1]);
      double want = dz * a[l];
      check_close(dw[l * N + i], want, 1e-4, "dloss/dw[%d][%d]", l, i);
      t_want += want * tw[l * N + i];
      da = dz * w[l * N + i];
    }
  }
  check_close(tangent, t_want, 1e-3, "tangent");
  device_free_all();
  return check_exit();
}
