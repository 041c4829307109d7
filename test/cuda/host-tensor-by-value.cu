// Host code with a move-only RAII Tensor<T> returned by value from the
// functions that launch (softplus, mul), move-assigned over a tensor whose
// buffer a launch already read (the old buffer is freed at once in the
// program; its free waits for the reverse sweep, which reads it again), and
// copied back into a std::vector summed in double on the host.
// objective(x) = sum_i softplus(w_i softplus(x_i)), with w Const:
// d/dx_i = sigmoid(z_i) w_i sigmoid(x_i), z_i = w_i softplus(x_i).
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
// The frees of the forward sweep are deferred to the end of the reverse one.
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_
// CHECK-DAG: {{call|invoke}} void @__kinase_defer_release(
// CHECK-DAG: {{call|invoke}} void @__kinase_release_deferred(
// CHECK-DAG: {{call|invoke}} void @__kinase_launch_reverse(

#include <kinase.h>
#include <utility>
#include <vector>
#include "cuda_check.h"

template <typename T> class Tensor {
public:
  explicit Tensor(int n) : n_(n) { check_cuda(cudaMalloc(&p_, n * sizeof(T)), "cudaMalloc"); }
  Tensor(Tensor &&o) noexcept : p_(o.p_), n_(o.n_) {
    o.p_ = nullptr;
    o.n_ = 0;
  }
  Tensor &operator=(Tensor &&o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  Tensor(const Tensor &) = delete;
  ~Tensor() {
    if (p_)
      cudaFree(p_);
  }
  T *data() const { return p_; }
  int size() const { return n_; }

private:
  T *p_ = nullptr;
  int n_ = 0;
};

__global__ void softplus_kernel(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = log1pf(expf(x[i]));
}
__global__ void mul_kernel(float *y, const float *a, const float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a[i] * b[i];
}

static Tensor<float> softplus(const float *x, int n) {
  Tensor<float> y(n);
  softplus_kernel<<<(n + 127) / 128, 128>>>(y.data(), x, n);
  return y;
}
static Tensor<float> mul(const Tensor<float> &a, const float *b) {
  Tensor<float> y(a.size());
  mul_kernel<<<(a.size() + 127) / 128, 128>>>(y.data(), a.data(), b, a.size());
  return y;
}

double objective(const float *x, const float *w, int n) {
  Tensor<float> h = softplus(x, n);
  Tensor<float> z = mul(h, w);
  h = softplus(z.data(), n);
  std::vector<float> out(n);
  check_cuda(cudaMemcpy(out.data(), h.data(), n * sizeof(float), cudaMemcpyDeviceToHost), "copy");
  double s = 0;
  for (float v : out)
    s += v;
  return s;
}

int main() {
  require_device();
  const int n = 1000;
  std::vector<float> x(n), w(n);
  for (int i = 0; i < n; i++) {
    x[i] = 0.005f * i - 2.5f;
    w[i] = cosf(0.3f * i);
  }
  float *d_x = to_device(x), *d_w = to_device(w), *d_dx = device_alloc<float>(n);
  check_cuda(cudaMemset(d_dx, 0, n * sizeof(float)), "memset");
  __enzyme_autodiff((void *)objective, enzyme_dup, d_x, d_dx, enzyme_const, d_w, enzyme_const, n);
  check_kernel("gradient of objective");
  std::vector<float> dx(n);
  from_device(dx, d_dx);
  for (int i = 0; i < n; i++) {
    double sx = 1 / (1 + exp(-(double)x[i])), z = w[i] * log1p(exp((double)x[i]));
    check_close(dx[i], w[i] * sx / (1 + exp(-z)), 1e-5, "d/dx[%d]", i);
  }
  device_free_all();
  return check_exit();
}
