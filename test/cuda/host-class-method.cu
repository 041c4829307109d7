// Host code as C++ users write it: a class owning its device buffers (RAII,
// cudaFree in the destructor) whose method zeroes an accumulator, launches
// two kernels (the second reads what the first wrote) and copies the loss
// back; the method is differentiated through a free function, the shadow
// object holding the shadow buffers. loss = sum((w x + b)^2): dw = 2 y x,
// db = sum(2 y), with x Const.
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
// Both launches are recorded and reversed; the loss copied back to the
// host has its reverse, which adds the host adjoint into the device one.
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_autodiff
// CHECK-DAG: @__kinase_launch_augment(ptr {{.*}}@_Z21__device_stub__affinePfPKfS1_fi
// CHECK-DAG: @__kinase_launch_augment(ptr {{.*}}@_Z25__device_stub__square_sumPfPKfi
// CHECK-DAG: call void @__kinase_copy_reverse(
// CHECK-DAG: call void @__kinase_launch_reverse(

#include <kinase.h>
#include <vector>
#include "cuda_check.h"

__global__ void affine(float *y, const float *x, const float *w, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = w[i] * x[i] + b;
}
__global__ void square_sum(float *loss, const float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(loss, y[i] * y[i]);
}

class Model {
public:
  explicit Model(int n) : n_(n) {
    check_cuda(cudaMalloc(&y_, n * sizeof(float)), "cudaMalloc y");
    check_cuda(cudaMalloc(&loss_, sizeof(float)), "cudaMalloc loss");
  }
  ~Model() {
    cudaFree(y_);
    cudaFree(loss_);
  }
  // The shadow model's buffers start at zero, as every shadow must.
  void clear() {
    check_cuda(cudaMemset(y_, 0, n_ * sizeof(float)), "memset y");
    check_cuda(cudaMemset(loss_, 0, sizeof(float)), "memset loss");
  }
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;

  // loss = sum((w x + b)^2), returned to the host
  float loss(const float *x, const float *w, float b) {
    cudaMemset(loss_, 0, sizeof(float));
    affine<<<(n_ + 127) / 128, 128>>>(y_, x, w, b, n_);
    square_sum<<<(n_ + 127) / 128, 128>>>(loss_, y_, n_);
    float host = 0;
    cudaMemcpy(&host, loss_, sizeof(float), cudaMemcpyDeviceToHost);
    return host;
  }

private:
  int n_;
  float *y_ = nullptr, *loss_ = nullptr;
};

static float model_loss(Model *m, const float *x, const float *w, float b) { return m->loss(x, w, b); }

int main() {
  require_device();
  const int n = 1000;
  std::vector<float> x(n), w(n);
  for (int i = 0; i < n; i++) {
    x[i] = 0.01f * (i % 17) - 0.08f;
    w[i] = 0.5f + 0.001f * (i % 11);
  }
  float *d_x = to_device(x), *d_w = to_device(w), *d_dw = device_alloc<float>(n);
  check_cuda(cudaMemset(d_dw, 0, n * sizeof(float)), "memset");
  const float b = 0.3f;
  {
    Model m(n), dm(n);
    dm.clear();
    double db = __enzyme_autodiff((void *)model_loss, enzyme_dup, &m, &dm, enzyme_const, d_x, enzyme_dup, d_w, d_dw, enzyme_out, b);
    std::vector<float> dw(n);
    from_device(dw, d_dw);
    double want_db = 0;
    for (int i = 0; i < n; i++) {
      double y = w[i] * x[i] + b;
      want_db += 2 * y;
      check_close(dw[i], 2 * y * x[i], 1e-4, "dw[%d]", i);
    }
    check_close(db, want_db, 1e-4, "db");
  }
  return check_exit();
}
