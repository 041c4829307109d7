// Host code in modern C++ style: device memory owned by std::unique_ptr with
// a deleter calling cudaFree, an error check that throws std::runtime_error
// with the CUDA error string, a lambda that launches a templated kernel on a
// non-blocking stream, pinned host memory (cudaMallocHost) as the target of
// an async copy, and the differentiated function taking its device pointers
// in a struct passed by value without a marker (`loss, p, dp, n`): each
// pointer in p gets the pointer at the same place in dp as its shadow.
// loss = sum_i w_i * 2 x_i^2: d/dx_i = 4 w_i x_i, d/dw_i = 2 x_i^2 (doubles).
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: FileCheck %s --check-prefix=ELEMENT --input-file=%t.O0.ll
// RUN: FileCheck %s --check-prefix=ELEMENT --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_autodiff
// CHECK-DAG: {{call|invoke}} {{.*}}ptr @__kinase_launch_augment(
// CHECK-DAG: {{call|invoke}} void @__kinase_launch_reverse(
// CHECK-DAG: {{call|invoke}} void @__kinase_copy_reverse(
//
// Both copies back to the host move doubles, known at compile time: the
// pinned buffer's pointer is loaded twice from one slot, and the vector's is
// seen once `data()` and `operator[]` are inlined. Element 8 is a double.
// ELEMENT-NOT: @__kinase_copy_reverse({{.*}}, i32 {{[0-9]+}}, ptr {{[^,]+}}, i32 0, ptr
// ELEMENT-COUNT-2: @__kinase_copy_reverse({{.*}}, i32 {{[0-9]+}}, ptr {{[^,]+}}, i32 8, ptr
// ELEMENT-NOT: @__kinase_copy_reverse({{.*}}, i32 {{[0-9]+}}, ptr {{[^,]+}}, i32 0, ptr

#include <kinase.h>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>
#include "cuda_check.h"

#define CUDA_CHECK(call)                                                                   \
  do {                                                                                     \
    cudaError_t err_ = (call);                                                             \
    if (err_ != cudaSuccess)                                                               \
      throw std::runtime_error(std::string(#call) + ": " + cudaGetErrorString(err_));      \
  } while (0)

struct CudaFree {
  void operator()(void *p) const { cudaFree(p); }
};
template <typename T> using device_ptr = std::unique_ptr<T[], CudaFree>;
template <typename T> static device_ptr<T> make_device(size_t n) {
  T *p;
  CUDA_CHECK(cudaMalloc(&p, n * sizeof(T)));
  return device_ptr<T>(p);
}

template <typename T> __global__ void square_scale(T *y, const T *x, T s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = s * x[i] * x[i];
}

struct Params {
  double *x;
  double *w;
};

double loss(Params p, int n) {
  auto y = make_device<double>(n);
  double *pinned;
  CUDA_CHECK(cudaMallocHost(&pinned, n * sizeof(double)));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  auto launch = [&](double s) {
    square_scale<double><<<(n + 63) / 64, 64, 0, stream>>>(y.get(), p.x, s, n);
    CUDA_CHECK(cudaGetLastError());
  };
  launch(2.0);
  CUDA_CHECK(cudaMemcpyAsync(pinned, y.get(), n * sizeof(double), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> w(n);
  CUDA_CHECK(cudaMemcpy(w.data(), p.w, n * sizeof(double), cudaMemcpyDeviceToHost));
  double s = 0;
  for (int i = 0; i < n; i++)
    s += w[i] * pinned[i];
  CUDA_CHECK(cudaFreeHost(pinned));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return s;
}

int main() {
  require_device();
  const int n = 1000;
  std::vector<double> x(n), w(n);
  for (int i = 0; i < n; i++) {
    x[i] = 0.01 * i - 3.0;
    w[i] = cos(0.1 * i);
  }
  auto dx = make_device<double>(n), dw = make_device<double>(n);
  auto gx = make_device<double>(n), gw = make_device<double>(n);
  check_cuda(cudaMemcpy(dx.get(), x.data(), n * sizeof(double), cudaMemcpyHostToDevice), "copy x");
  check_cuda(cudaMemcpy(dw.get(), w.data(), n * sizeof(double), cudaMemcpyHostToDevice), "copy w");
  check_cuda(cudaMemset(gx.get(), 0, n * sizeof(double)), "memset");
  check_cuda(cudaMemset(gw.get(), 0, n * sizeof(double)), "memset");
  Params p{dx.get(), dw.get()}, dp{gx.get(), gw.get()};
  try {
    __enzyme_autodiff((void *)loss, p, dp, n);
  } catch (const std::exception &e) {
    printf("FAIL: %s\n", e.what());
    return 1;
  }
  std::vector<double> Gx(n), Gw(n);
  check_cuda(cudaMemcpy(Gx.data(), gx.get(), n * sizeof(double), cudaMemcpyDeviceToHost), "copy dx");
  check_cuda(cudaMemcpy(Gw.data(), gw.get(), n * sizeof(double), cudaMemcpyDeviceToHost), "copy dw");
  for (int i = 0; i < n; i++) {
    check_close(Gx[i], 4 * w[i] * x[i], 1e-12, "d/dx[%d]", i);
    check_close(Gw[i], 2 * x[i] * x[i], 1e-12, "d/dw[%d]", i);
  }
  return check_exit();
}
