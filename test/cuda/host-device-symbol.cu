// Results that kernels accumulate into __device__ variables, copied back
// with cudaMemcpyFromSymbol, as CUDA programs write a loss:
//  - energy: cudaMemcpyToSymbol resets `__device__ float g_sum`, a kernel
//    atomicAdds alpha * x^2 into it, cudaMemcpyFromSymbol reads it back:
//    d x = 2 alpha x, d alpha = sum x^2 (analytic), twice in a row (the
//    reverse of the reset clears the variable's shadow, so nothing leaks
//    into the next gradient), and in forward mode;
//  - variance: `__device__ double g_moments[2]` reset by
//    cudaMemcpyToSymbolAsync on a stream, a kernel accumulating sum x and
//    sum x^2, each read back by cudaMemcpyFromSymbolAsync (the second at an
//    offset): d x_i = 2 (x_i - mean) / n, both ways in (the mean's part
//    needs the primal launch to have run: it was skipped once);
//  - after each gradient the variables hold what the function left there.
// The variables' shadows are the device module's (__kinase_shadow_g_sum,
// visible so that the runtime finds it in the module of the file's
// kernels), which the derivative kernels read and write.
//
// REQUIRES: cuda
// RUN: %kinase-cc %cudainc -O2 --cuda-device-only -S %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: FileCheck %s --check-prefix=REV --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-device-only -S %s -o %t.O0.ptx
// RUN: FileCheck %s --check-prefix=REV --input-file=%t.O0.ptx
// RUN: %ptxas -arch=sm_90 %t.O0.ptx -o %t.O0.cubin
// RUN: %kinase-cc %cudainc -O0 --cuda-host-only -S -emit-llvm %s -o %t.O0.ll
// RUN: FileCheck %s --input-file=%t.O0.ll
// RUN: %kinase-cc %cudainc -O2 --cuda-host-only -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --input-file=%t.ll
// RUN: %kinase-cc %cudainc -O0 %s -o %t.O0.exe
// RUN: %kinase-cc %cudainc -O2 %s -o %t.exe
//
// PTX-DAG: .visible .global .align 4 .f32 __kinase_shadow_g_sum;
// PTX-DAG: .visible .global .align 8 .b8 __kinase_shadow_g_moments[16];
// PTX-DAG: atom.global.add.f32 {{.*}}[__kinase_shadow_g_sum]
//
// Both kernels write memory other than their parameters' (flags word 3):
// their launches are never skipped, and so their reverse kernels read the
// variables' shadows but leave the variables alone (the forward sweep's
// launch added into them already; again would double them). At -O0 the
// atomicAdd is a call that gets the variable's address.
// REV-DAG: __kinase_kinfo__Z18accumulate_squaresPKffi[24] = {75, 73, 78, 49, 3, 0, 0, 0, 3,
// REV-DAG: __kinase_kinfo__Z18accumulate_momentsPKfi[20] = {75, 73, 78, 49, 2, 0, 0, 0, 3,
// REV-LABEL: .entry __kinase_krev_d__Z18accumulate_squaresPKffi(
// REV-NOT: {{[[ ]}}g_sum{{[];+]}}
// REV: __kinase_shadow_g_sum
// REV-NOT: {{[[ ]}}g_sum{{[];+]}}
// REV: ret;
// REV-LABEL: .entry __kinase_krev_d__Z18accumulate_momentsPKfi(
// REV-NOT: {{[[ ]}}g_moments{{[];+]}}
// REV: __kinase_shadow_g_moments
// REV-NOT: {{[[ ]}}g_moments{{[];+]}}
// REV: ret;
//
// The reverse of the read adds its adjoint into the variable's shadow
// (float, double elements); the reverse of the reset clears it (a null
// source); forward mode copies the shadow's tangent, and zeroes it at the
// reset.
// CHECK-NOT: {{call|invoke}} {{.*}}@__enzyme_
// CHECK-DAG: [[FROM:%[0-9a-z.]+]] = call ptr @__kinase_symbol_shadow(ptr {{.*}}@_Z{{[0-9]+}}__device_stub__{{[a-z_]+}}PKf{{[fi]+}}, ptr {{.*}}@kinase.text.g_sum, i64 0,
// CHECK-DAG: call void @__kinase_copy_reverse(ptr [[FROM]], ptr {{.*}}, i64 4, i32 4, ptr {{.*}}, i32 4,
// CHECK-DAG: [[AT8:%[0-9a-z.]+]] = call ptr @__kinase_symbol_shadow(ptr {{.*}}, ptr {{.*}}@kinase.text.g_moments, i64 8,
// CHECK-DAG: call void @__kinase_copy_reverse(ptr [[AT8]], ptr {{.*}}, i64 8, i32 4, ptr {{.*}}, i32 8,
// CHECK-DAG: call void @__kinase_copy_reverse(ptr null, ptr {{.*}}, i64 16, i32 4,
// CHECK-DAG: call void @__kinase_copy_tangent(ptr {{.*}}, ptr %{{[0-9a-z.]+}}, i64 4,
// CHECK-DAG: call void @__kinase_copy_tangent(ptr {{.*}}, ptr null, i64 4,

#include <kinase.h>
#include <vector>
#include "cuda_check.h"

__device__ float g_sum;
__device__ double g_moments[2];

__global__ void accumulate_squares(const float *x, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&g_sum, alpha * x[i] * x[i]);
}

__global__ void accumulate_moments(const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double v = x[i];
    atomicAdd(&g_moments[0], v);
    atomicAdd(&g_moments[1], v * v);
  }
}

float energy(const float *d_x, float alpha, int n) {
  float zero = 0.0f;
  cudaMemcpyToSymbol(g_sum, &zero, sizeof(float));
  accumulate_squares<<<(n + 255) / 256, 256>>>(d_x, alpha, n);
  float sum;
  cudaMemcpyFromSymbol(&sum, g_sum, sizeof(float));
  return sum;
}

double variance(const float *d_x, int n) {
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  double zeros[2] = {0.0, 0.0};
  cudaMemcpyToSymbolAsync(g_moments, zeros, sizeof zeros, 0, cudaMemcpyHostToDevice, stream);
  accumulate_moments<<<(n + 127) / 128, 128, 0, stream>>>(d_x, n);
  double m1, m2;
  cudaMemcpyFromSymbolAsync(&m1, g_moments, sizeof(double), 0, cudaMemcpyDeviceToHost, stream);
  cudaMemcpyFromSymbolAsync(&m2, g_moments, sizeof(double), sizeof(double),
                            cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
  cudaStreamDestroy(stream);
  double mean = m1 / n;
  return m2 / n - mean * mean;
}

int main() {
  require_device();
  const int n = 3000;
  const float alpha = 1.5f;
  std::vector<float> x(n), t(n), dx(n);
  double sum_sq = 0, mean = 0, directional = 0;
  for (int i = 0; i < n; i++) {
    x[i] = 0.8f * sinf(0.01f * i) + 0.3f;
    t[i] = cosf(0.05f * i);
    sum_sq += (double)x[i] * x[i];
    mean += x[i] / (double)n;
    directional += 2.0 * alpha * x[i] * t[i];
  }
  float *d_x = to_device(x), *d_dx = device_alloc<float>(n), *d_t = to_device(t);

  for (int round = 0; round < 2; round++) { // the second sees no adjoint of the first
    check_cuda(cudaMemset(d_dx, 0, n * sizeof(float)), "memset");
    float dalpha = __enzyme_autodiff((void *)energy, enzyme_dup, d_x, d_dx, enzyme_out, alpha,
                                     enzyme_const, n);
    check_kernel("gradient of energy");
    from_device(dx, d_dx);
    for (int i = 0; i < n; i++)
      check_close(dx[i], 2.0 * alpha * x[i], 1e-5, "energy, round %d: d x[%d]", round, i);
    check_close(dalpha, sum_sq, 1e-4, "energy, round %d: d alpha", round);
    float left;
    check_cuda(cudaMemcpyFromSymbol(&left, g_sum, sizeof left), "read g_sum");
    check_close(left, alpha * sum_sq, 1e-4, "energy, round %d: g_sum after the gradient", round);
  }
  for (int round = 0; round < 2; round++) {
    float tangent = __enzyme_fwddiff((void *)energy, enzyme_dup, d_x, d_t, enzyme_dup, alpha, 1.0f,
                                     enzyme_const, n);
    check_kernel("tangent of energy");
    check_close(tangent, directional + sum_sq, 1e-4, "energy, round %d: forward mode", round);
  }
  check_close(energy(d_x, alpha, n), alpha * sum_sq, 1e-4, "energy: value");

  check_cuda(cudaMemset(d_dx, 0, n * sizeof(float)), "memset");
  __enzyme_autodiff((void *)variance, enzyme_dup, d_x, d_dx, enzyme_const, n);
  check_kernel("gradient of variance");
  double moments[2];
  check_cuda(cudaMemcpyFromSymbol(moments, g_moments, sizeof moments), "read g_moments");
  check_close(moments[0], n * mean, 1e-6, "variance: sum x after the gradient");
  from_device(dx, d_dx);
  double var_directional = 0;
  for (int i = 0; i < n; i++) {
    double g = 2.0 * (x[i] - mean) / n;
    check_within(dx[i], g, 1e-6, "variance: d x[%d]", i);
    var_directional += g * t[i];
  }
  double var_tangent = __enzyme_fwddiff((void *)variance, enzyme_dup, d_x, d_t, enzyme_const, n);
  check_kernel("tangent of variance");
  check_within(var_tangent, var_directional, 1e-6, "variance: forward mode");
  device_free_all();
  return check_exit();
}
