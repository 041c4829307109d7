// Optional pointers passed as nullptr, as CUDA code often takes a bias or
// a second output: `bias ? bias[i] : 0`, `if (aux) aux[i] = ...`. The
// derivative kernels of `act` take a shadow for aux (written) and the
// forward kernel one for bias too, so where the launch passes nullptr the
// runtime gives them a null shadow, as the pointer they shadow, where it
// used to look for the CUDA allocation of a null pointer and stop with
// "writes through parameter 3, passed as Const, into memory that is not a
// CUDA allocation". Reverse and forward mode, each launched once with the
// pointers and once with nullptr.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// aux has a shadow in every derivative kernel of act, bias in the forward
// kernel and in one of the reverse kernels.
// CHECK-DAG: .entry __kinase_krev_nddn__Z3act
// CHECK-DAG: .entry __kinase_krev_ndcn__Z3act
// CHECK-DAG: .entry __kinase_kfwd_dddd__Z3act

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { N = 700 };

// y = silu(x + bias), aux = x + bias where asked.
__global__ void act(float *y, const float *x, const float *bias, float *aux, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i] + (bias ? bias[i] : 0.f);
    if (aux)
      aux[i] = v;
    y[i] = v / (1.f + expf(-v));
  }
}

void layer(const float *h_x, const float *h_bias, float *h_y, int n, bool with) {
  size_t bytes = n * sizeof(float);
  float *x, *y, *bias = nullptr, *aux = nullptr;
  cudaMalloc(&x, bytes);
  cudaMalloc(&y, bytes);
  if (with) {
    cudaMalloc(&bias, bytes);
    cudaMalloc(&aux, bytes);
    cudaMemcpy(bias, h_bias, bytes, cudaMemcpyHostToDevice);
  }
  cudaMemcpy(x, h_x, bytes, cudaMemcpyHostToDevice);
  act<<<(n + 127) / 128, 128>>>(y, x, bias, aux, n);
  cudaMemcpy(h_y, y, bytes, cudaMemcpyDeviceToHost);
  cudaFree(x);
  cudaFree(y);
  if (with) {
    cudaFree(bias);
    cudaFree(aux);
  }
}

static double dsilu(double v) {
  double s = 1 / (1 + exp(-v));
  return s + v * s * (1 - s);
}

int main() {
  require_device();
  std::vector<float> x(N), bias(N), y(N);
  for (int i = 0; i < N; i++) {
    x[i] = 1.5f * sinf(0.05f * i);
    bias[i] = 0.3f * cosf(0.3f * i);
  }
  for (int with = 0; with < 2; with++) {
    std::vector<float> dx(N, 0.0f), dbias(N, 0.0f), dy(N), seed(N);
    for (int i = 0; i < N; i++)
      seed[i] = dy[i] = 1.0f + 0.001f * i;
    __enzyme_autodiff((void *)layer, enzyme_dup, x.data(), dx.data(), enzyme_dup, bias.data(), dbias.data(),
                      enzyme_dupnoneed, y.data(), dy.data(), enzyme_const, N, enzyme_const, (bool)with);
    check_kernel("gradient of layer");
    for (int i = 0; i < N; i++) {
      double g = seed[i] * dsilu((double)x[i] + (with ? bias[i] : 0.0));
      check_close(dx[i], g, 1e-4, "with %d: dx[%d]", with, i);
      check_close(dbias[i], with ? g : 0.0, 1e-4, "with %d: dbias[%d]", with, i);
    }
    std::vector<float> tx(N), tbias(N), ty(N);
    for (int i = 0; i < N; i++) {
      tx[i] = cosf(0.1f * i);
      tbias[i] = 0.5f;
    }
    __enzyme_fwddiff((void *)layer, enzyme_dup, x.data(), tx.data(), enzyme_dup, bias.data(), tbias.data(),
                     enzyme_dup, y.data(), ty.data(), enzyme_const, N, enzyme_const, (bool)with);
    check_kernel("tangent of layer");
    for (int i = 0; i < N; i++) {
      double v = (double)x[i] + (with ? bias[i] : 0.0);
      check_close(y[i], v / (1 + exp(-v)), 1e-5, "with %d: y[%d]", with, i);
      check_close(ty[i], dsilu(v) * (tx[i] + (with ? tbias[i] : 0.0)), 1e-4, "with %d: ty[%d]", with, i);
    }
  }
  return check_exit();
}
