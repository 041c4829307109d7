// A stack of elementwise layers h_{l+1} = tanh(w_l h_l + b_l), as a
// physicist's small network might be written: the activations of every
// layer kept in a std::vector<float *> of cudaMalloc'd buffers (filled by
// cudaMalloc(&acts[l], ...) in a loop), the per-layer scalars read by
// every thread from a device array of weights, the loss 0.5 sum h_L^2
// reduced into a RAII DeviceScalar and read back through its member
// function. Gradients with respect to the input, the weights and the
// biases against the backpropagation on the host; forward mode along the
// weights against the same.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 700, LAYERS = 4 };

__global__ void layer(float *out, const float *in, const float *w, const float *b, int l, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tanhf(w[l] * in[i] + b[l]);
}

__global__ void half_sum_squares(float *total, const float *h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(total, 0.5f * h[i] * h[i]);
}

class DeviceScalar {
public:
  DeviceScalar() {
    cudaMalloc(&p_, sizeof(float));
    cudaMemset(p_, 0, sizeof(float));
  }
  ~DeviceScalar() { cudaFree(p_); }
  DeviceScalar(const DeviceScalar &) = delete;
  DeviceScalar &operator=(const DeviceScalar &) = delete;
  float *get() { return p_; }
  float read() const {
    float v;
    cudaMemcpy(&v, p_, sizeof(float), cudaMemcpyDeviceToHost);
    return v;
  }

private:
  float *p_ = nullptr;
};

float stack_loss(const float *x, const float *w, const float *b, int n, int layers) {
  std::vector<float *> acts(layers);
  for (int l = 0; l < layers; l++)
    cudaMalloc(&acts[l], n * sizeof(float));
  const float *in = x;
  for (int l = 0; l < layers; l++) {
    layer<<<(n + 127) / 128, 128>>>(acts[l], in, w, b, l, n);
    in = acts[l];
  }
  DeviceScalar total;
  half_sum_squares<<<(n + 127) / 128, 128>>>(total.get(), in, n);
  float loss = total.read();
  for (int l = 0; l < layers; l++)
    cudaFree(acts[l]);
  return loss;
}

int main() {
  require_device();
  std::vector<float> x(N), w(LAYERS), b(LAYERS), tw(LAYERS);
  for (int i = 0; i < N; i++) x[i] = sinf(0.05f * i) * 1.5f;
  for (int l = 0; l < LAYERS; l++) {
    w[l] = 0.8f + 0.2f * l;
    b[l] = 0.1f * (l - 1);
    tw[l] = 1.0f - 0.5f * l;
  }
  float *d_x = to_device(x), *d_w = to_device(w), *d_b = to_device(b), *d_tw = to_device(tw);
  float *d_dx = device_alloc<float>(N), *d_dw = device_alloc<float>(LAYERS);
  float *d_db = device_alloc<float>(LAYERS);
  check_cuda(cudaMemset(d_dx, 0, N * sizeof(float)), "memset");
  check_cuda(cudaMemset(d_dw, 0, LAYERS * sizeof(float)), "memset");
  check_cuda(cudaMemset(d_db, 0, LAYERS * sizeof(float)), "memset");
  __enzyme_autodiff((void *)stack_loss, enzyme_dup, d_x, d_dx, enzyme_dup, d_w, d_dw, enzyme_dup,
                    d_b, d_db, enzyme_const, N, enzyme_const, LAYERS);
  check_kernel("gradient of stack_loss");
  std::vector<float> dx(N), dw(LAYERS), db(LAYERS);
  from_device(dx, d_dx);
  from_device(dw, d_dw);
  from_device(db, d_db);
  float *d_zero = device_alloc<float>(N);
  check_cuda(cudaMemset(d_zero, 0, N * sizeof(float)), "memset");
  check_cuda(cudaMemset(d_db, 0, LAYERS * sizeof(float)), "memset");
  double tangent = __enzyme_fwddiff((void *)stack_loss, enzyme_dup, d_x, d_zero, enzyme_dup, d_w,
                                    d_tw, enzyme_dup, d_b, d_db, enzyme_const, N, enzyme_const,
                                    LAYERS);
  check_kernel("tangent of stack_loss");

  std::vector<double> gw(LAYERS, 0.0), gb(LAYERS, 0.0);
  double loss = 0;
  for (int i = 0; i < N; i++) {
    double h[LAYERS + 1];
    h[0] = x[i];
    for (int l = 0; l < LAYERS; l++) h[l + 1] = tanh(w[l] * h[l] + b[l]);
    loss += 0.5 * h[LAYERS] * h[LAYERS];
    double a = h[LAYERS];
    for (int l = LAYERS - 1; l >= 0; l--) {
      double g = a * (1 - h[l + 1] * h[l + 1]);
      gw[l] += g * h[l];
      gb[l] += g;
      a = g * w[l];
    }
    check_close(dx[i], a, 1e-4, "dx[%d]", i);
  }
  double t_want = 0;
  for (int l = 0; l < LAYERS; l++) {
    check_close(dw[l], gw[l], 1e-3, "dw[%d]", l);
    check_close(db[l], gb[l], 1e-3, "db[%d]", l);
    t_want += gw[l] * tw[l];
  }
  check_close(tangent, t_want, 1e-3, "tangent along the weights");
  check_close(stack_loss(d_x, d_w, d_b, N, LAYERS), loss, 1e-4, "loss");
  device_free_all();
  return check_exit();
}
