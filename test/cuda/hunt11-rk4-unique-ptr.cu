// Classical Runge-Kutta time stepping as a CUDA user writes it: device
// buffers held by std::unique_ptr<double[], CudaFree> (a deleter struct
// calling cudaFree), one kernel per stage launched five times a step on a
// dim3 grid, the first stage passing nullptr for the previous stage's
// slope (`kprev ? y + h kprev : y`), and an in-place combine. dy/dt =
// -k y + sin(y), per element; reverse mode (gradients of the final state
// with respect to the initial state and k) and forward mode (along all k),
// against central differences of the same integrator on the host.
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
#include <memory>
#include <vector>
#include "cuda_check.h"

enum { N = 300, STEPS = 8, CHECKED = 24 };

struct CudaFree {
  void operator()(void *p) const { cudaFree(p); }
};
template <class T> using dev_ptr = std::unique_ptr<T[], CudaFree>;
template <class T> static dev_ptr<T> dev_alloc(size_t n) {
  T *p = nullptr;
  cudaMalloc(&p, n * sizeof(T));
  return dev_ptr<T>(p);
}

__device__ double rhs(double y, double k) { return -k * y + sin(y); }

__global__ void stage(double *out, const double *y, const double *kprev, double h, const double *k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = rhs(kprev ? y[i] + h * kprev[i] : y[i], k[i]);
}

__global__ void combine(double *y, const double *k1, const double *k2, const double *k3, const double *k4,
                        double h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
}

void integrate(double *y_host, const double *k_host, int n, int steps, double h) {
  auto y = dev_alloc<double>(n), k = dev_alloc<double>(n);
  auto k1 = dev_alloc<double>(n), k2 = dev_alloc<double>(n), k3 = dev_alloc<double>(n), k4 = dev_alloc<double>(n);
  cudaMemcpy(y.get(), y_host, n * sizeof(double), cudaMemcpyHostToDevice);
  cudaMemcpy(k.get(), k_host, n * sizeof(double), cudaMemcpyHostToDevice);
  dim3 block(128), grid((n + 127) / 128);
  for (int s = 0; s < steps; s++) {
    stage<<<grid, block>>>(k1.get(), y.get(), nullptr, 0.0, k.get(), n);
    stage<<<grid, block>>>(k2.get(), y.get(), k1.get(), 0.5 * h, k.get(), n);
    stage<<<grid, block>>>(k3.get(), y.get(), k2.get(), 0.5 * h, k.get(), n);
    stage<<<grid, block>>>(k4.get(), y.get(), k3.get(), h, k.get(), n);
    combine<<<grid, block>>>(y.get(), k1.get(), k2.get(), k3.get(), k4.get(), h, n);
  }
  cudaMemcpy(y_host, y.get(), n * sizeof(double), cudaMemcpyDeviceToHost);
}

// The same integrator for one element.
static double final_state(double y, double k, int steps, double h) {
  for (int s = 0; s < steps; s++) {
    double a = -k * y + sin(y), b = -k * (y + 0.5 * h * a) + sin(y + 0.5 * h * a);
    double c = -k * (y + 0.5 * h * b) + sin(y + 0.5 * h * b), d = -k * (y + h * c) + sin(y + h * c);
    y += h / 6 * (a + 2 * b + 2 * c + d);
  }
  return y;
}

int main() {
  require_device();
  const double h = 0.05, e = 1e-6;
  std::vector<double> y0(N), k(N), y(N), dy(N, 1.0), dk(N, 0.0);
  for (int i = 0; i < N; i++) {
    y0[i] = y[i] = 0.5 + 0.4 * sin(0.3 * i);
    k[i] = 0.7 + 0.2 * cos(0.11 * i);
  }
  __enzyme_autodiff((void *)integrate, enzyme_dup, y.data(), dy.data(), enzyme_dup, k.data(), dk.data(),
                    enzyme_const, N, enzyme_const, STEPS, enzyme_const, h);
  check_kernel("gradient of integrate");
  for (int i = 0; i < CHECKED; i++) {
    double gy = (final_state(y0[i] + e, k[i], STEPS, h) - final_state(y0[i] - e, k[i], STEPS, h)) / (2 * e);
    double gk = (final_state(y0[i], k[i] + e, STEPS, h) - final_state(y0[i], k[i] - e, STEPS, h)) / (2 * e);
    check_close(y[i], final_state(y0[i], k[i], STEPS, h), 1e-12, "y[%d]", i);
    check_close(dy[i], gy, 1e-6, "dy[%d]", i);
    check_close(dk[i], gk, 1e-6, "dk[%d]", i);
  }
  std::vector<double> y2 = y0, ty(N, 0.0), tk(N, 1.0);
  __enzyme_fwddiff((void *)integrate, enzyme_dup, y2.data(), ty.data(), enzyme_dup, k.data(), tk.data(),
                   enzyme_const, N, enzyme_const, STEPS, enzyme_const, h);
  check_kernel("tangent of integrate");
  for (int i = 0; i < CHECKED; i++) {
    double gk = (final_state(y0[i], k[i] + e, STEPS, h) - final_state(y0[i], k[i] - e, STEPS, h)) / (2 * e);
    check_close(ty[i], gk, 1e-6, "ty[%d]", i);
  }
  return check_exit();
}
