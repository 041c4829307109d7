// A small MLP's loss on the GPU, written as CUDA users write it: a RAII
// DeviceBuffer<T> (cudaMalloc in the constructor, cudaFree in the
// destructor) for the parameters and the intermediate activations, a
// variadic template launch helper checking cudaGetLastError, three kernels
// in sequence (dense + tanh, dense, squared error), cudaPeekAtLastError,
// events timing the whole inside the differentiated function, and the
// per-sample errors copied into a std::vector and reduced on the host.
// Checked three ways: reverse mode against central differences (doubles
// on the host around float kernels: a few entries of each parameter), and
// the dot-product test between reverse mode and forward mode along a
// direction in W, exact up to rounding.
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
// The three launches are recorded and reversed, the copy back reversed, the
// event calls kept as written; forward mode launches the forward kernels.
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_
// CHECK-DAG: {{call|invoke}} {{.*}}ptr @__kinase_launch_augment(ptr {{.*}}dense_tanh
// CHECK-DAG: {{call|invoke}} {{.*}}ptr @__kinase_launch_augment(ptr {{.*}}dense_out
// CHECK-DAG: {{call|invoke}} {{.*}}ptr @__kinase_launch_augment(ptr {{.*}}sq_err
// CHECK-DAG: {{call|invoke}} void @__kinase_launch_reverse(
// CHECK-DAG: {{call|invoke}} void @__kinase_copy_reverse(
// CHECK-DAG: {{call|invoke}} {{.*}}@cudaEventElapsedTime(
// CHECK-DAG: {{call|invoke}} void @__kinase_launch_tangent(ptr {{.*}}dense_tanh

#include <kinase.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "cuda_check.h"
#include "mlp_data.h"
#include "mlp_kernels.cuh"

#define CUDA_CHECK(call)                                                                   \
  do {                                                                                     \
    cudaError_t err_ = (call);                                                             \
    if (err_ != cudaSuccess) {                                                             \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err_), __FILE__, __LINE__); \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)

template <typename T> class DeviceBuffer {
public:
  explicit DeviceBuffer(size_t n) : n_(n) { CUDA_CHECK(cudaMalloc(&ptr_, n * sizeof(T))); }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  T *data() { return ptr_; }
  size_t size() const { return n_; }
  void upload(const std::vector<T> &host) {
    CUDA_CHECK(cudaMemcpy(ptr_, host.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
  }
  void download(std::vector<T> &host) {
    host.resize(n_);
    CUDA_CHECK(cudaMemcpy(host.data(), ptr_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
  }
  void zero() { CUDA_CHECK(cudaMemset(ptr_, 0, n_ * sizeof(T))); }

private:
  T *ptr_ = nullptr;
  size_t n_;
};

__global__ void sq_err(float *e, const float *y, const float *t, int batch) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < batch) {
    float d = y[b] - t[b];
    e[b] = d * d;
  }
}

template <typename Kernel, typename... Args> static void launch(Kernel kernel, int n, Args... args) {
  const int block = 128;
  kernel<<<(n + block - 1) / block, block>>>(args...);
  CUDA_CHECK(cudaGetLastError());
}

enum { B = 300, IN = 5, HID = 16 };

// 0.5 * mean squared error
float mlp_loss(const float *W, const float *bias, const float *v, const float *x, const float *t) {
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  DeviceBuffer<float> h(B * HID), y(B), e(B);
  launch(dense_tanh, B * HID, h.data(), x, W, bias, (int)B, (int)IN, (int)HID);
  launch(dense_out, B, y.data(), (const float *)h.data(), v, (int)B, (int)HID);
  launch(sq_err, B, e.data(), (const float *)y.data(), t, (int)B);
  CUDA_CHECK(cudaPeekAtLastError());
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  if (ms < 0)
    printf("negative elapsed time\n");
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  std::vector<float> errors;
  e.download(errors);
  float loss = 0;
  for (float err : errors)
    loss += err;
  return 0.5f * loss / B;
}

int main() {
  require_device();
  std::vector<float> W(HID * IN), bias(HID), v(HID), x(B * IN), t(B), dir(HID * IN);
  mlp_data(W.data(), bias.data(), v.data(), x.data(), t.data(), dir.data(), B, IN, HID);
  DeviceBuffer<float> dW(W.size()), dbias(bias.size()), dv(v.size()), dx(x.size()), dt(t.size());
  DeviceBuffer<float> gW(W.size()), gbias(bias.size()), gv(v.size()), tW(W.size());
  dW.upload(W), dbias.upload(bias), dv.upload(v), dx.upload(x), dt.upload(t), tW.upload(dir);
  gW.zero(), gbias.zero(), gv.zero();

  __enzyme_autodiff((void *)mlp_loss, enzyme_dup, dW.data(), gW.data(), enzyme_dup, dbias.data(),
                    gbias.data(), enzyme_dup, dv.data(), gv.data(), enzyme_const, dx.data(),
                    enzyme_const, dt.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> GW, Gb, Gv;
  gW.download(GW), gbias.download(Gb), gv.download(Gv);

  // central differences, the parameter moved on the device
  auto central = [&](std::vector<float> &p, DeviceBuffer<float> &dp, int k) {
    const float h = 1e-2f, keep = p[k];
    p[k] = keep + h;
    dp.upload(p);
    double up = mlp_loss(dW.data(), dbias.data(), dv.data(), dx.data(), dt.data());
    p[k] = keep - h;
    dp.upload(p);
    double down = mlp_loss(dW.data(), dbias.data(), dv.data(), dx.data(), dt.data());
    p[k] = keep;
    dp.upload(p);
    return (up - down) / (2.0 * h);
  };
  for (int k = 0; k < HID * IN; k += 7) {
    double want = central(W, dW, k);
    check_within(GW[k], want, 5e-4 + 2e-2 * fabs(want), "d/dW[%d]", k);
  }
  for (int j = 0; j < HID; j += 3) {
    double want = central(bias, dbias, j);
    check_within(Gb[j], want, 5e-4 + 2e-2 * fabs(want), "d/dbias[%d]", j);
    want = central(v, dv, j);
    check_within(Gv[j], want, 5e-4 + 2e-2 * fabs(want), "d/dv[%d]", j);
  }

  // the dot-product test: (J^T 1) . dir == J dir
  float along = __enzyme_fwddiff((void *)mlp_loss, enzyme_dup, dW.data(), tW.data(), enzyme_const,
                                 dbias.data(), enzyme_const, dv.data(), enzyme_const, dx.data(),
                                 enzyme_const, dt.data());
  double dot = 0;
  for (int k = 0; k < HID * IN; k++)
    dot += (double)GW[k] * dir[k];
  check_close(along, dot, 1e-4, "forward mode along dir against the gradient");
  return check_exit();
}
