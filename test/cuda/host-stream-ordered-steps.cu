// Time stepping as CUDA users write it, on a stream of its own: buffers from
// cudaMallocAsync, an initial state copied device to device with
// cudaMemcpyAsync, a host loop of launches through a variadic template that
// packs the arguments into `void *args[]` for cudaLaunchKernel, the two
// buffers swapped with std::swap after each step, the final state copied
// back with cudaMemcpyAsync + cudaStreamSynchronize into a std::vector, the
// loss reduced on the host, and the buffers freed with cudaFreeAsync.
// A damped Jacobi-like step in doubles, with an active relaxation factor w:
// the gradient (reverse mode, source and w) is checked against central
// differences, and against forward mode by the dot-product test.
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
// cudaLaunchKernel with a kernel handle goes through the argument-array launch
// (the argument array's shadow); the async allocations get shadows.
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_
// CHECK-DAG: {{call|invoke}} {{.*}}ptr @__kinase_shadow_alloc(
// CHECK-DAG: {{call|invoke}} {{.*}}@__kinase_direct_launch_augment(
// CHECK-DAG: {{call|invoke}} void @__kinase_driver_launch_reverse(
// CHECK-DAG: {{call|invoke}} void @__kinase_copy_reverse(
// CHECK-DAG: {{call|invoke}} void @__kinase_direct_launch_tangent(

#include <kinase.h>
#include <utility>
#include <vector>
#include "cuda_check.h"

__global__ void relax(double *out, const double *in, const double *src, double w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1)
    out[i] = (1 - w) * in[i] + 0.5 * w * (in[i - 1] + in[i + 1] + src[i]);
  else if (i == 0 || i == n - 1)
    out[i] = 0;
}

template <typename Kernel, typename... Args>
static void launch_on(cudaStream_t stream, int n, Kernel kernel, Args... args) {
  void *packed[] = {&args...};
  cudaLaunchKernel((const void *)kernel, dim3((n + 127) / 128), dim3(128), packed, 0, stream);
}

double solve(const double *u0, const double *src, double w, int n, int steps) {
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  double *a, *b;
  cudaMallocAsync(&a, n * sizeof(double), stream);
  cudaMallocAsync(&b, n * sizeof(double), stream);
  cudaMemcpyAsync(a, u0, n * sizeof(double), cudaMemcpyDeviceToDevice, stream);
  for (int k = 0; k < steps; k++) {
    launch_on(stream, n, relax, b, (const double *)a, src, w, n);
    std::swap(a, b);
  }
  std::vector<double> u(n);
  cudaMemcpyAsync(u.data(), a, n * sizeof(double), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  cudaFreeAsync(a, stream);
  cudaFreeAsync(b, stream);
  cudaStreamDestroy(stream);
  double e = 0;
  for (int i = 0; i < n; i++)
    e += u[i] * u[i] * (1.0 + 0.01 * i);
  return e;
}

int main() {
  require_device();
  const int n = 300, steps = 40;
  const double w = 0.8;
  std::vector<double> u0(n), src(n), dir(n);
  for (int i = 0; i < n; i++) {
    u0[i] = 0.5 * sin(0.1 * i);
    src[i] = 0.2 * cos(0.05 * i);
    dir[i] = sin(0.3 * i + 1.0);
  }
  double *d_u0 = to_device(u0), *d_src = to_device(src), *d_dir = to_device(dir);
  double *g_u0 = device_alloc<double>(n), *g_src = device_alloc<double>(n);
  check_cuda(cudaMemset(g_u0, 0, n * sizeof(double)), "memset");
  check_cuda(cudaMemset(g_src, 0, n * sizeof(double)), "memset");
  double dw = __enzyme_autodiff((void *)solve, enzyme_dup, d_u0, g_u0, enzyme_dup, d_src, g_src,
                                enzyme_out, w, enzyme_const, n, enzyme_const, steps);
  check_cuda(cudaDeviceSynchronize(), "gradient of solve");
  std::vector<double> G_u0(n), G_src(n);
  from_device(G_u0, g_u0);
  from_device(G_src, g_src);

  const double h = 1e-6;
  double want_w = (solve(d_u0, d_src, w + h, n, steps) - solve(d_u0, d_src, w - h, n, steps)) / (2 * h);
  check_close(dw, want_w, 1e-6, "d/dw");
  for (int i = 1; i < n; i += 37) {
    std::vector<double> moved = src;
    moved[i] = src[i] + h;
    check_cuda(cudaMemcpy(d_dir, moved.data(), n * sizeof(double), cudaMemcpyHostToDevice), "copy");
    double up = solve(d_u0, d_dir, w, n, steps);
    moved[i] = src[i] - h;
    check_cuda(cudaMemcpy(d_dir, moved.data(), n * sizeof(double), cudaMemcpyHostToDevice), "copy");
    double down = solve(d_u0, d_dir, w, n, steps);
    check_close(G_src[i], (up - down) / (2 * h), 1e-6, "d/dsrc[%d]", i);
  }

  // the dot-product test along dir in u0, and forward mode along w
  check_cuda(cudaMemcpy(d_dir, dir.data(), n * sizeof(double), cudaMemcpyHostToDevice), "copy");
  double along = __enzyme_fwddiff((void *)solve, enzyme_dup, d_u0, d_dir, enzyme_const, d_src,
                                  enzyme_const, w, enzyme_const, n, enzyme_const, steps);
  double dot = 0;
  for (int i = 0; i < n; i++)
    dot += G_u0[i] * dir[i];
  check_close(along, dot, 1e-10, "forward mode along dir against the gradient");
  double along_w = __enzyme_fwddiff((void *)solve, enzyme_const, d_u0, enzyme_const, d_src,
                                    enzyme_dup, w, 1.0, enzyme_const, n, enzyme_const, steps);
  check_close(along_w, dw, 1e-10, "forward mode along w");
  return check_exit();
}
