// A small dense layer whose weights live in __constant__ memory, as CUDA
// tutorials put a model's parameters: the host function copies the weight
// matrix (host memory, enzyme_dup) into `__constant__ float c_W[]` with
// cudaMemcpyToSymbol and the biases into a `__device__ float g_b[]` with
// cudaMemcpyToSymbolAsync at an offset, launches y = tanh(W x + b) per
// sample, copies y back and returns sum_i c_i y_i. Before, a compile error
// ("cudaMemcpyToSymbol copies values that carry derivatives into a
// __device__ or __constant__ variable, which has no shadow"); now the
// derivative kernels add the weights' adjoints into the variables' shadows
// in the device module, and the reverse of the copies moves them to the
// host shadows. Gradients with respect to W, b and x against the analytic
// ones, twice (nothing leaks from one request into the next); forward mode
// along W. Then a kernel reading `__constant__ float c_scale` set in main,
// outside any request, differentiated in reverse and then in forward mode:
// the adjoints the first left in c_scale's shadow are cleared before the
// second, not read as tangents.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// The variables' shadows are global memory, visible to the runtime; the
// reverse kernel adds into them.
// PTX-DAG: .visible .global .align 4 .b8 __kinase_shadow_c_W[
// PTX-DAG: .visible .global .align 4 .b8 __kinase_shadow_g_b[
// PTX-DAG: atom.global.add.f32 {{.*}}[__kinase_shadow_c_scale]
//
// No device code writes them: each has a live flag, which the runtime sets
// where a copy moves derivatives through its shadow; the kernels add into
// the shadow only while it is set (a branch the same for every thread).
// PTX-DAG: .visible .global .align 4 .u32 __kinase_live_c_W;
// PTX-DAG: .visible .global .align 4 .u32 __kinase_live_g_b;
// PTX-DAG: .visible .global .align 4 .u32 __kinase_live_c_scale;
// PTX-DAG: ld.global{{(.nc)?}}.b32 {{.*}}[__kinase_live_c_scale]
//
// Each request first clears the shadows; the reverse of the copies reads
// them back into the host shadows of W and b.
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_
// CHECK-DAG: call void @__kinase_symbol_shadow_clear(ptr {{.*}}, ptr {{.*}}@kinase.text.c_W,
// CHECK-DAG: call void @__kinase_symbol_live(ptr {{.*}}, ptr {{.*}}@kinase.text.c_W,
// CHECK-DAG: call void @__kinase_symbol_live(ptr {{.*}}, ptr {{.*}}@kinase.text.g_b,
// CHECK-DAG: [[W:%[0-9a-z.]+]] = call ptr @__kinase_symbol_shadow(ptr {{.*}}, ptr {{.*}}@kinase.text.c_W, i64 0,
// CHECK-DAG: call void @__kinase_copy_reverse(ptr {{.*}}%{{[0-9a-z.]+}}, ptr [[W]], i64 {{.*}}, i32 4, ptr {{.*}}, i32 4,
// CHECK-DAG: call ptr @__kinase_symbol_shadow(ptr {{.*}}, ptr {{.*}}@kinase.text.g_b, i64 {{%[0-9a-z.]+|8}},
// CHECK-DAG: call void @__kinase_copy_tangent(ptr {{.*}}, ptr {{.*}}%{{[0-9a-z.]+}}, i64 120,

#include <kinase.h>
#include <math.h>
#include <vector>
#include "cuda_check.h"

enum { IN = 6, OUT = 5, SAMPLES = 300, PAD = 2 };

__constant__ float c_W[OUT * IN];
__device__ float g_b[PAD + OUT]; // the biases sit after PAD unused entries
__constant__ float c_scale;

__global__ void dense(float *y, const float *x, int samples) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= samples)
    return;
  for (int o = 0; o < OUT; o++) {
    float z = g_b[PAD + o];
    for (int k = 0; k < IN; k++)
      z += c_W[o * IN + k] * x[s * IN + k];
    y[s * OUT + o] = tanhf(z);
  }
}

float layer_score(const float *W, const float *b, const float *x, const float *c, int samples) {
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaMemcpyToSymbol(c_W, W, OUT * IN * sizeof(float));
  cudaMemcpyToSymbolAsync(g_b, b, OUT * sizeof(float), PAD * sizeof(float), cudaMemcpyHostToDevice,
                          stream);
  cudaStreamSynchronize(stream);
  cudaStreamDestroy(stream);
  float *y;
  cudaMalloc(&y, samples * OUT * sizeof(float));
  dense<<<(samples + 63) / 64, 64>>>(y, x, samples);
  std::vector<float> host(samples * OUT);
  cudaMemcpy(host.data(), y, host.size() * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(y);
  float score = 0;
  for (int i = 0; i < samples * OUT; i++)
    score += c[i] * host[i];
  return score;
}

__global__ void scale_by_constant(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = c_scale * x[i] * x[i];
}

void scaled_squares(float *y, const float *x, int n) {
  scale_by_constant<<<(n + 127) / 128, 128>>>(y, x, n);
}

int main() {
  require_device();
  std::vector<float> W(OUT * IN), b(OUT), x(SAMPLES * IN), c(SAMPLES * OUT), tW(OUT * IN);
  for (int i = 0; i < OUT * IN; i++) {
    W[i] = 0.4f * sinf(1.7f * i + 0.3f);
    tW[i] = cosf(0.9f * i);
  }
  for (int o = 0; o < OUT; o++) b[o] = 0.1f * o - 0.2f;
  for (int i = 0; i < SAMPLES * IN; i++) x[i] = sinf(0.13f * i);
  for (int i = 0; i < SAMPLES * OUT; i++) c[i] = 1.0f + 0.5f * cosf(0.07f * i);
  float *d_x = to_device(x), *d_dx = device_alloc<float>(SAMPLES * IN);

  std::vector<double> gW(OUT * IN, 0.0), gb(OUT, 0.0), gx(SAMPLES * IN, 0.0);
  for (int s = 0; s < SAMPLES; s++)
    for (int o = 0; o < OUT; o++) {
      double z = b[o];
      for (int k = 0; k < IN; k++) z += (double)W[o * IN + k] * x[s * IN + k];
      double g = c[s * OUT + o] * (1 - tanh(z) * tanh(z));
      gb[o] += g;
      for (int k = 0; k < IN; k++) {
        gW[o * IN + k] += g * x[s * IN + k];
        gx[s * IN + k] += g * W[o * IN + k];
      }
    }
  for (int round = 0; round < 2; round++) {
    std::vector<float> dW(OUT * IN, 0.0f), db(OUT, 0.0f), dx(SAMPLES * IN);
    check_cuda(cudaMemset(d_dx, 0, SAMPLES * IN * sizeof(float)), "memset");
    __enzyme_autodiff((void *)layer_score, enzyme_dup, W.data(), dW.data(), enzyme_dup, b.data(),
                      db.data(), enzyme_dup, d_x, d_dx, enzyme_const, c.data(), enzyme_const,
                      SAMPLES);
    check_kernel("gradient of layer_score");
    from_device(dx, d_dx);
    for (int i = 0; i < OUT * IN; i++) check_close(dW[i], gW[i], 1e-4, "round %d dW[%d]", round, i);
    for (int o = 0; o < OUT; o++) check_close(db[o], gb[o], 1e-4, "round %d db[%d]", round, o);
    for (int i = 0; i < SAMPLES * IN; i++)
      check_close(dx[i], gx[i], 1e-4, "round %d dx[%d]", round, i);
  }
  std::vector<float> tb(OUT, 0.0f);
  float *d_tx = device_alloc<float>(SAMPLES * IN);
  check_cuda(cudaMemset(d_tx, 0, SAMPLES * IN * sizeof(float)), "memset");
  double tangent = __enzyme_fwddiff((void *)layer_score, enzyme_dup, W.data(), tW.data(),
                                    enzyme_dup, b.data(), tb.data(), enzyme_dup, d_x, d_tx,
                                    enzyme_const, c.data(), enzyme_const, SAMPLES);
  check_kernel("tangent of layer_score");
  double t_want = 0;
  for (int i = 0; i < OUT * IN; i++) t_want += gW[i] * tW[i];
  check_close(tangent, t_want, 1e-4, "tangent along W");

  // c_scale set outside any request: reverse, then forward mode.
  const int n = 1000;
  const float scale = 1.5f;
  check_cuda(cudaMemcpyToSymbol(c_scale, &scale, sizeof scale), "cudaMemcpyToSymbol");
  std::vector<float> v(n), ones(n, 1.0f);
  for (int i = 0; i < n; i++) v[i] = 0.01f * i - 3.0f;
  float *d_v = to_device(v), *d_dv = device_alloc<float>(n), *d_y = device_alloc<float>(n);
  float *d_dy = to_device(ones), *d_tv = to_device(ones), *d_ty = device_alloc<float>(n);
  check_cuda(cudaMemset(d_dv, 0, n * sizeof(float)), "memset");
  __enzyme_autodiff((void *)scaled_squares, enzyme_dup, d_y, d_dy, enzyme_dup, d_v, d_dv,
                    enzyme_const, n);
  check_kernel("gradient of scaled_squares");
  __enzyme_fwddiff((void *)scaled_squares, enzyme_dup, d_y, d_ty, enzyme_dup, d_v, d_tv,
                   enzyme_const, n);
  check_kernel("tangent of scaled_squares");
  std::vector<float> dv(n), ty(n);
  from_device(dv, d_dv);
  from_device(ty, d_ty);
  for (int i = 0; i < n; i++) {
    check_close(dv[i], 2.0 * scale * v[i], 1e-5, "dv[%d]", i);
    check_close(ty[i], 2.0 * scale * v[i], 1e-5, "ty[%d]", i);
  }
  device_free_all();
  return check_exit();
}
